import { Interface, type FunctionFragment, type Result } from 'ethers';
import {
  ALLOWED_FUNCTIONS,
  FORBIDDEN_FUNCTIONS,
  POLYGON_CONTRACTS,
  contractName,
  type PolygonContractName,
} from './polygon-contracts.js';
import { RELAYABLE, relayRefusal, type RelayRefusal, type RelayRefusalCode } from './relay-refusal.js';

/**
 * The allow-list proper: which (contract × function × arguments) a client-signed transaction may
 * carry to be relayed (polymarket.md §8.3–§8.4, spec §4.2 "only signed approval or redemption
 * transactions that target known external-venue contracts"). Everything not matched by a rule
 * below is refused; the rules are data so that the test can list them.
 *
 * Decisions where the reference leaves a choice:
 * - Revocations (approve 0, setApprovalForAll false) are relayed, as their own kinds: they can
 *   only take rights away, and refusing them would stop a user from protecting their funds.
 * - Protocol-V2 contracts (ExchangeV3, Router, PositionManager) and the AutoRedeemOperator are not
 *   approved or called: the service does not trade Protocol-V2 markets yet.
 * - The onramp's `wrap` (§8.4 "optionally") is not relayed: the spec relays approvals and
 *   redemptions only. Approving the onramp on USDC.e / native USDC is, being an approval of a
 *   known contract (the allowances map has `usdc_*` keys).
 * - Redemption arguments are pinned to the §8.3 shape even where the adapters ignore them; whether
 *   the sender holds the condition needs state, so the caller checks `call.conditionId`.
 * - `matchCall` alone also suits a deposit wallet's Batch `calls[i]` (§8.4 "the same whitelist
 *   applies"), with `value` 0 checked by the caller.
 */

export type RelayKind =
  | 'approve-collateral'
  | 'revoke-collateral'
  | 'approve-ctf-operator'
  | 'revoke-ctf-operator'
  | 'approve-onramp'
  | 'revoke-onramp'
  | 'redeem';

/** The decoded call of an accepted transaction, for the broadcast record and later checks. */
export interface RelayedCall {
  contract: PolygonContractName;
  signature: string;
  /** approve's spender or setApprovalForAll's operator (checksummed). */
  spender?: string;
  /** approve's amount (decimal string; max uint256 included). */
  amount?: string;
  /** setApprovalForAll's flag. */
  approved?: boolean;
  /** Redemptions: the condition redeemed (the relay may check the sender holds it). */
  conditionId?: string;
}

export type CallMatch = { ok: true; kind: RelayKind; call: RelayedCall } | RelayRefusal;

const C = POLYGON_CONTRACTS;

/**
 * The approvals the official client's `set_approvals()` signs (issue 26 item 1), which are also the
 * set `all_set` asks for: pUSD and CTF operator approvals to the CLOB V2 exchanges (Exchange V2 and
 * both neg-risk exchanges, A and B: BUY and SELL need them) and the NegRiskAdapter (legacy
 * neg-risk redemption pulls positions through it; §8.3 calls its pUSD approval "harmless"); pUSD to
 * the V2 fee escrow (fees are collected in pUSD, so it needs no CTF operator right) and to the CTF
 * collateral adapter (splits); CTF operator to both collateral adapters (pUSD redemption).
 */
export const CLIENT_PUSD_SPENDERS: readonly string[] = [
  C.ctfExchangeV2,
  C.negRiskExchangeV2,
  C.negRiskExchangeV2B,
  C.negRiskAdapter,
  C.feeEscrowV2,
  C.ctfCollateralAdapter,
];
export const CLIENT_CTF_OPERATORS: readonly string[] = [
  C.ctfExchangeV2,
  C.negRiskExchangeV2,
  C.negRiskExchangeV2B,
  C.negRiskAdapter,
  C.ctfCollateralAdapter,
  C.negRiskCtfCollateralAdapter,
];

/**
 * Who may be approved to move pUSD: the client's set, plus the NegRiskCtfCollateralAdapter, which
 * §8.3/§8.4 name for neg-risk splits. The client does not send that one and no flow of ours needs
 * it (redemption through the adapter only needs the CTF operator right), so it is relayed but not
 * required. ExchangeV3, the Protocol-V2 router and the AutoRedeemOperator of the official SDK's
 * list are left out: the service does not trade Protocol-V2 markets, and an operator that redeems
 * on Polymarket's side is not needed here.
 */
export const PUSD_SPENDERS: readonly string[] = [...CLIENT_PUSD_SPENDERS, C.negRiskCtfCollateralAdapter];

/** USDC (bridged or native) may only be approved to the onramp that wraps it into pUSD (§8.4). */
export const ONRAMP_SPENDERS: readonly string[] = [C.collateralOnramp];

const ZERO_BYTES32 = `0x${'0'.repeat(64)}`;

// Named parameters only for readable decoding; the selectors come from the signatures, which the
// test pins to polymarket.md §8.2.
const ABI = new Interface([
  'function approve(address spender, uint256 amount)',
  'function setApprovalForAll(address operator, bool approved)',
  'function redeemPositions(address collateralToken, bytes32 parentCollectionId, bytes32 conditionId, uint256[] indexSets)',
  'function redeemPositions(bytes32 conditionId, uint256[] amounts)',
]);

export const fragmentOf = (fn: keyof typeof ALLOWED_FUNCTIONS): FunctionFragment =>
  ABI.getFunction(ALLOWED_FUNCTIONS[fn].signature)!;

/** Calldata of one allowed function, encoded exactly as the allow-list expects it back. */
export const encodeAllowedCall = (fn: keyof typeof ALLOWED_FUNCTIONS, args: readonly unknown[]) =>
  ABI.encodeFunctionData(fragmentOf(fn), args);

const isOneOf = (address: string, list: readonly string[]) =>
  list.some((a) => a.toLowerCase() === address.toLowerCase());

interface CallRule {
  contract: PolygonContractName;
  fn: keyof typeof ALLOWED_FUNCTIONS;
  /** Judge the decoded arguments of a canonically encoded call. */
  check(args: Result): CallMatch;
}

const approvalRule = (
  contract: PolygonContractName,
  spenders: readonly string[],
  kinds: { approve: RelayKind; revoke: RelayKind },
): CallRule => ({
  contract,
  fn: 'approve',
  check(args) {
    const spender = args[0] as string;
    const amount = args[1] as bigint;
    if (!isOneOf(spender, spenders))
      return relayRefusal(
        'unknown_spender',
        `approve on ${contract} names the spender ${spender}, which is not one of the Polymarket contracts that need this allowance.`,
        `Approve only ${spenders.join(', ')} on ${contract}. ${RELAYABLE}`,
      );
    // Any amount: max uint256 is what the official clients sign, and 0 is a revocation, which can
    // only take rights away from a contract, never move funds.
    return {
      ok: true,
      kind: amount === 0n ? kinds.revoke : kinds.approve,
      call: { contract, signature: ALLOWED_FUNCTIONS.approve.signature, spender, amount: amount.toString() },
    };
  },
});

const operatorRule: CallRule = {
  contract: 'ctf',
  fn: 'setApprovalForAll',
  check(args) {
    const operator = args[0] as string;
    const approved = args[1] as boolean;
    if (!isOneOf(operator, CLIENT_CTF_OPERATORS))
      return relayRefusal(
        'unknown_operator',
        `setApprovalForAll on the CTF names the operator ${operator}, which is not one of the Polymarket exchanges or adapters.`,
        `Approve only ${CLIENT_CTF_OPERATORS.join(', ')} as CTF operators. ${RELAYABLE}`,
      );
    // `false` is a revocation (polymarket.md §8.4 leaves it to the service): allowed, because it
    // only withdraws rights; the kind tells the record it was one.
    return {
      ok: true,
      kind: approved ? 'approve-ctf-operator' : 'revoke-ctf-operator',
      call: {
        contract: 'ctf',
        signature: ALLOWED_FUNCTIONS.setApprovalForAll.signature,
        spender: operator,
        approved,
      },
    };
  },
};

const badRedeem = (contract: PolygonContractName, what: string, want: string) =>
  relayRefusal(
    'bad_redeem_arguments',
    `redeemPositions on ${contract}: ${what}.`,
    `Redeem with ${want} (polymarket.md §8.3); POST /api/sdk/redeem returns the exact transaction to sign.`,
  );

/**
 * The CTF-style redemption `redeemPositions(collateral, parent, conditionId, indexSets)`. The
 * adapters ignore all but the condition, and the CTF pays whatever collateral it is told, so the
 * arguments are pinned to the one shape of §8.3/§8.4: the contract's collateral, the root
 * collection, a real condition and both outcomes of a binary market.
 */
const redeemRule = (contract: PolygonContractName, collateral: string): CallRule => ({
  contract,
  fn: 'redeemPositions',
  check(args) {
    const [token, parent, conditionId, indexSets] = args as unknown as [string, string, string, bigint[]];
    const want = `collateral ${collateral}, parent 0x00…00, a condition id and indexSets [1,2]`;
    if (token.toLowerCase() !== collateral.toLowerCase())
      return badRedeem(contract, `the collateral is ${token}, not ${collateral}`, want);
    if (parent !== ZERO_BYTES32)
      return badRedeem(contract, 'the parent collection is not the root (0x00…00)', want);
    if (conditionId === ZERO_BYTES32) return badRedeem(contract, 'the condition id is zero', want);
    if (indexSets.length !== 2 || indexSets[0] !== 1n || indexSets[1] !== 2n)
      return badRedeem(contract, `the index sets are [${indexSets.join(',')}], not [1,2]`, want);
    return {
      ok: true,
      kind: 'redeem',
      call: { contract, signature: ALLOWED_FUNCTIONS.redeemPositions.signature, conditionId },
    };
  },
});

/** NegRiskAdapter `redeemPositions(conditionId, [yesAmount, noAmount])`: any amounts, two of them. */
const negRiskRedeemRule: CallRule = {
  contract: 'negRiskAdapter',
  fn: 'redeemNegRisk',
  check(args) {
    const [conditionId, amounts] = args as unknown as [string, bigint[]];
    const want = 'a condition id and the two amounts [yes, no]';
    if (conditionId === ZERO_BYTES32) return badRedeem('negRiskAdapter', 'the condition id is zero', want);
    if (amounts.length !== 2)
      return badRedeem('negRiskAdapter', `${amounts.length} amounts instead of [yes, no]`, want);
    return {
      ok: true,
      kind: 'redeem',
      call: { contract: 'negRiskAdapter', signature: ALLOWED_FUNCTIONS.redeemNegRisk.signature, conditionId },
    };
  },
};

export const CALL_RULES: readonly CallRule[] = [
  approvalRule('pusd', PUSD_SPENDERS, { approve: 'approve-collateral', revoke: 'revoke-collateral' }),
  approvalRule('usdcBridged', ONRAMP_SPENDERS, { approve: 'approve-onramp', revoke: 'revoke-onramp' }),
  approvalRule('usdcNative', ONRAMP_SPENDERS, { approve: 'approve-onramp', revoke: 'revoke-onramp' }),
  operatorRule,
  redeemRule('ctf', C.usdcBridged),
  redeemRule('ctfCollateralAdapter', C.pusd),
  redeemRule('negRiskCtfCollateralAdapter', C.pusd),
  negRiskRedeemRule,
];

const FORBIDDEN_CODES: Record<keyof typeof FORBIDDEN_FUNCTIONS, RelayRefusalCode> = {
  transfer: 'transfer_not_allowed',
  transferFrom: 'transfer_from_not_allowed',
  safeTransferFrom: 'safe_transfer_not_allowed',
  safeBatchTransferFrom: 'safe_batch_transfer_not_allowed',
  increaseAllowance: 'increase_allowance_not_allowed',
  permit: 'permit_not_allowed',
};

function refuseFunction(contract: PolygonContractName, selector: string): RelayRefusal {
  for (const [name, f] of Object.entries(FORBIDDEN_FUNCTIONS))
    if (f.selector === selector)
      return relayRefusal(
        FORBIDDEN_CODES[name as keyof typeof FORBIDDEN_FUNCTIONS],
        `${f.signature} on ${contract} moves funds or grants an allowance the relay cannot check; it is never relayed.`,
        `Send transfers with your own wallet and RPC, not through the service. ${RELAYABLE}`,
      );
  return relayRefusal(
    'function_not_allowed',
    `The function ${selector} on ${contract} is neither an approval nor a redemption.`,
    RELAYABLE,
  );
}

/** Whether `data` sent to `to` is one of the allowed calls, and which. */
export function matchCall(to: string, data: string): CallMatch {
  const contract = contractName(to);
  if (contract === null)
    return relayRefusal(
      'unknown_contract',
      `${to} is not a Polymarket contract on Polygon.`,
      `Check the transaction's "to" address. ${RELAYABLE}`,
    );
  const rulesOfContract = CALL_RULES.filter((r) => r.contract === contract);
  if (rulesOfContract.length === 0)
    return relayRefusal(
      'contract_not_allowed',
      `${contract} (${to}) is a Polymarket contract, but nothing sent to it is an approval or a redemption the relay forwards.`,
      `Send it with your own wallet and RPC. ${RELAYABLE}`,
    );
  if (data === '0x')
    return relayRefusal('no_calldata', `The transaction to ${contract} calls no function.`, RELAYABLE);
  const selector = data.slice(0, 10).toLowerCase();
  const rule = rulesOfContract.find((r) => ALLOWED_FUNCTIONS[r.fn].selector === selector);
  if (!rule) return refuseFunction(contract, selector);

  let args: Result;
  let reencoded: string;
  try {
    args = ABI.decodeFunctionData(fragmentOf(rule.fn), data);
    // ethers defers some decoding errors (an address word with high bits) to the first access of
    // the value; re-encoding touches every value, so it belongs inside the same guard.
    reencoded = ABI.encodeFunctionData(fragmentOf(rule.fn), args);
  } catch {
    return relayRefusal(
      'bad_arguments',
      `The arguments of ${ALLOWED_FUNCTIONS[rule.fn].signature} on ${contract} do not decode.`,
      'Encode the call with a standard ABI encoder (ethers, web3, viem) and sign it again.',
    );
  }
  // Decoding tolerates bytes after the arguments and dirty padding (a bool of 2); the contract
  // would too, so such calldata could smuggle data past a reader of the record. Only the one
  // canonical encoding of the decoded arguments is relayed.
  if (reencoded !== data.toLowerCase())
    return relayRefusal(
      'calldata_not_canonical',
      `The calldata of ${ALLOWED_FUNCTIONS[rule.fn].signature} on ${contract} is not the standard encoding of its arguments (extra bytes or non-zero padding).`,
      'Encode the call with a standard ABI encoder, without appending data, and sign it again.',
    );
  return rule.check(args);
}
