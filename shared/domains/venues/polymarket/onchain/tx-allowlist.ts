import { Transaction } from 'ethers';
import { POLYGON_CHAIN_ID } from './polygon-contracts.js';
import { RELAYABLE, relayRefusal, type RelayRefusal } from './relay-refusal.js';
import { matchCall, type RelayKind, type RelayedCall } from './relay-rules.js';

export { approvalTransactions, redemptionTransaction } from './approval-transactions.js';
export type { RelayKind, RelayedCall } from './relay-rules.js';
export type { RelayRefusal, RelayRefusalCode } from './relay-refusal.js';

/**
 * The security boundary of `POST /api/sdk/wallet/broadcast-tx` (issue 13 item 3): whether a raw
 * transaction a client signed may be sent to Polygon on its behalf. A relay that forwarded anything
 * signed would be an open proxy (and a free gas-less path) for moving anyone's funds, so this
 * accepts only what the rules of relay-rules.ts name and refuses everything else with a code.
 * Pure: no RPC, no clock, no state; nonces, gas and "does the sender hold this condition" are the
 * caller's business.
 */

export interface RelayableTx {
  /**
   * The bytes that were checked, as 0x-prefixed lowercase hex: what the relay records and sends,
   * whatever spelling the caller used (with or without 0x, any case).
   */
  raw: string;
  /** keccak256 of the raw bytes (equal to the node's hash: the encoding is checked canonical). */
  hash: string;
  /** The recovered signer, checksummed. */
  from: string;
  to: string;
  nonce: number;
  chainId: number;
  /** 0 (legacy, EIP-155) or 2 (EIP-1559). */
  type: 0 | 2;
}

export type RelayCheck = { ok: true; kind: RelayKind; tx: RelayableTx; call: RelayedCall } | RelayRefusal;

/**
 * Approvals and redemptions are a few hundred bytes; anything far larger is refused before it is
 * parsed, so the endpoint cannot be made to decode megabytes of RLP.
 */
export const MAX_RAW_TX_BYTES = 16_384;

// secp256k1 group order: r and s must lie in [1, n-1], and s in the lower half (EIP-2). ethers
// recovers from the canonical form of a high-s signature, but Polygon nodes reject the
// transaction, so it is refused here rather than "relayed" into a certain failure.
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/**
 * Transaction types: 0 (legacy with EIP-155 chain id) and 2 (EIP-1559) are what wallets and the
 * official clients sign. The others are refused (polymarket.md does not name them):
 * 1 (EIP-2930) adds nothing a relay needs; 3 (EIP-4844) carries blobs no approval uses; 4 (EIP-7702)
 * embeds an authorisation that delegates the wallet's code to another contract, which would hand
 * that contract every asset of the wallet — the most dangerous thing a relay could forward.
 * A type-2 access list is accepted: it only pre-declares storage slots (gas), it executes nothing.
 */
const TYPE_REFUSALS: Record<number, string> = {
  1: 'EIP-2930 (type 1) transactions are not relayed',
  3: 'EIP-4844 blob (type 3) transactions are not relayed',
  4: 'EIP-7702 (type 4) transactions carry a code delegation of the wallet and are never relayed',
};
const SIGN_AGAIN_TYPE =
  'Sign it again as a legacy (type 0, with chain id 137) or EIP-1559 (type 2) transaction, without an authorization list.';

function parseHex(raw: unknown): { hex: string } | RelayRefusal {
  const malformed = relayRefusal(
    'malformed_tx',
    'signed_tx is not a hex-encoded signed transaction.',
    'Send the raw signed transaction as 0x-prefixed hex (e.g. ethers `wallet.signTransaction(tx)` or web3 `signed.raw_transaction.hex()`).',
  );
  if (typeof raw !== 'string') return malformed;
  // Python clients' HexBytes.hex() may drop the 0x (client-contract §10.22): accept both.
  const body = raw.startsWith('0x') || raw.startsWith('0X') ? raw.slice(2) : raw;
  if (body.length > MAX_RAW_TX_BYTES * 2)
    return relayRefusal(
      'tx_too_large',
      `signed_tx is larger than ${MAX_RAW_TX_BYTES} bytes; approvals and redemptions are a few hundred.`,
      RELAYABLE,
    );
  if (body.length === 0 || body.length % 2 !== 0 || !/^[0-9a-fA-F]+$/.test(body)) return malformed;
  return { hex: `0x${body.toLowerCase()}` };
}

/** Is `rawSignedTx` a transaction the linked wallet `expect.sender` may have relayed, and which? */
export function checkRelayableTransaction(rawSignedTx: string, expect: { sender: string }): RelayCheck {
  const parsed = parseHex(rawSignedTx);
  if ('ok' in parsed) return parsed;
  const { hex } = parsed;

  // An envelope byte below 0x7f is a typed transaction; ethers knows 1–4 and throws on the rest,
  // which deserve the "type" refusal rather than "malformed".
  const envelope = parseInt(hex.slice(2, 4), 16);
  if (envelope < 0x7f && !(envelope >= 1 && envelope <= 4))
    return relayRefusal('tx_type_not_allowed', `Unknown transaction type ${envelope}.`, SIGN_AGAIN_TYPE);

  let tx: Transaction;
  try {
    tx = Transaction.from(hex);
  } catch {
    return relayRefusal(
      'malformed_tx',
      'signed_tx does not decode as an Ethereum transaction (bad RLP or fields).',
      'Send the raw signed transaction exactly as the wallet produced it, not the transaction object or its hash.',
    );
  }

  if (tx.type !== 0 && tx.type !== 2)
    return relayRefusal(
      'tx_type_not_allowed',
      `${TYPE_REFUSALS[tx.type ?? -1] ?? `Type ${tx.type} transactions are not relayed`}.`,
      SIGN_AGAIN_TYPE,
    );

  const sig = tx.signature;
  if (sig === null)
    return relayRefusal(
      'unsigned_tx',
      'signed_tx is an unsigned transaction.',
      'Sign the transaction with the linked wallet before sending it.',
    );
  const r = BigInt(sig.r);
  const s = BigInt(sig._s);
  const badSignature = relayRefusal(
    'bad_signature',
    'The transaction signature is not a valid secp256k1 signature.',
    'Sign the transaction again with the linked wallet; do not edit the signed bytes.',
  );
  if (r === 0n || r >= SECP256K1_N || s === 0n || s > SECP256K1_N / 2n) return badSignature;
  let from: string;
  let canonical: string;
  try {
    from = tx.from!;
    canonical = tx.serialized;
  } catch {
    return badSignature;
  }
  // The node hashes the bytes it receives; re-encoding must give them back exactly, so that the
  // hash recorded here is the one the receipt will carry (and no non-canonical RLP slips through).
  if (canonical !== hex)
    return relayRefusal(
      'malformed_tx',
      'signed_tx is not the canonical encoding of its transaction (extra bytes or non-minimal RLP).',
      'Send the raw signed transaction exactly as the wallet produced it.',
    );

  if (tx.type === 0 && tx.chainId === 0n)
    return relayRefusal(
      'no_replay_protection',
      'The legacy transaction has no chain id (pre-EIP-155), so it could be replayed on any chain.',
      'Sign it again with chainId 137.',
    );
  if (tx.chainId !== POLYGON_CHAIN_ID)
    return relayRefusal(
      'wrong_chain',
      `The transaction is signed for chain ${tx.chainId}, not Polygon (137).`,
      'Sign it again with chainId 137.',
    );
  if (from.toLowerCase() !== expect.sender.toLowerCase())
    return relayRefusal(
      'sender_mismatch',
      `The transaction is signed by ${from}, not by the wallet linked to this account (${expect.sender}).`,
      'Sign with the linked wallet, or link this wallet first (POST /api/sdk/wallet/link).',
    );
  if (tx.to === null)
    return relayRefusal(
      'contract_creation',
      'The transaction deploys a contract; the relay never deploys code.',
      RELAYABLE,
    );
  if (tx.value !== 0n)
    return relayRefusal(
      'value_transfer',
      `The transaction sends ${tx.value} wei of POL; approvals and redemptions send none.`,
      'Sign it again with value 0. Move POL with your own wallet and RPC.',
    );

  const match = matchCall(tx.to, tx.data);
  if (!match.ok) return match;
  return {
    ok: true,
    kind: match.kind,
    call: match.call,
    tx: {
      raw: canonical,
      hash: tx.hash!,
      from,
      to: tx.to,
      nonce: tx.nonce,
      chainId: Number(tx.chainId),
      type: tx.type,
    },
  };
}
