/**
 * Why a client-signed transaction is not relayed. One code per reason, so the broadcast endpoint,
 * its records and the tests can tell "someone tried `transfer`" from "the client signed for the
 * wrong chain"; `fix` is written for the person (or agent) who signed it.
 */
export const RELAY_REFUSAL_CODES = [
  'malformed_tx',
  'tx_too_large',
  'unsigned_tx',
  'tx_type_not_allowed',
  'bad_signature',
  'no_replay_protection',
  'wrong_chain',
  'sender_mismatch',
  'contract_creation',
  'value_transfer',
  'unknown_contract',
  'contract_not_allowed',
  'no_calldata',
  'function_not_allowed',
  'transfer_not_allowed',
  'transfer_from_not_allowed',
  'safe_transfer_not_allowed',
  'safe_batch_transfer_not_allowed',
  'increase_allowance_not_allowed',
  'permit_not_allowed',
  'unknown_spender',
  'unknown_operator',
  'bad_arguments',
  'calldata_not_canonical',
  'bad_redeem_arguments',
] as const;

export type RelayRefusalCode = (typeof RELAY_REFUSAL_CODES)[number];

export interface RelayRefusal {
  ok: false;
  code: RelayRefusalCode;
  error: string;
  fix: string;
}

export const relayRefusal = (code: RelayRefusalCode, error: string, fix: string): RelayRefusal => ({
  ok: false,
  code,
  error,
  fix,
});

/** What the relay does forward, for the `fix` of most refusals. */
export const RELAYABLE =
  'The relay only forwards pUSD/CTF approvals of the Polymarket V2 exchanges and adapters, USDC approvals of the collateral onramp, and redemptions (see GET /api/polymarket/allowances/{address}?include_tx_params=1 and POST /api/sdk/redeem for transactions to sign).';
