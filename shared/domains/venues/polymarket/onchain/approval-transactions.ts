import { MaxUint256, getAddress, isHexString } from 'ethers';
import { POLYGON_CHAIN_ID, POLYGON_CONTRACTS } from './polygon-contracts.js';
import {
  CLIENT_CTF_OPERATORS,
  CLIENT_PUSD_SPENDERS,
  ONRAMP_SPENDERS,
  encodeAllowedCall,
  type RelayKind,
} from './relay-rules.js';

/**
 * The unsigned transactions the service hands out for a wallet to sign: the approvals
 * (`GET /api/polymarket/allowances/{address}?include_tx_params=1`, client-contract §8.3) and the
 * redemption of an external wallet (`POST /api/sdk/redeem` → `unsigned_tx`, §8.4). They are built
 * from the same encoder and spender lists as the relay's allow-list, and the test signs each one and
 * checks the relay accepts it: the service never asks a wallet to sign what it would then refuse.
 */

/** The tokens of the allowances map keys (`pusd_<spender>`, `ctf_<spender>`, … client-contract §8.3). */
export type ApprovalToken = 'pusd' | 'ctf' | 'usdc_bridged' | 'usdc_native';

export interface ApprovalSpec {
  /** The allowances map key: `<token>_<spender lowercase>`. */
  key: string;
  token: ApprovalToken;
  /** The token contract the approval is sent to. */
  contract: string;
  spender: string;
}

export interface UnsignedTx {
  from: string;
  to: string;
  data: string;
  value: 0;
  chainId: number;
  /** What the relay will classify it as once signed. */
  kind: RelayKind;
}

export const approvalKey = (token: ApprovalToken, spender: string) => `${token}_${spender.toLowerCase()}`;

const spec = (token: ApprovalToken, contract: string, spender: string): ApprovalSpec => ({
  key: approvalKey(token, spender),
  token,
  contract,
  spender,
});

/**
 * What a wallet needs to trade and redeem on CLOB V2 (polymarket.md §8.3): exactly the twelve the
 * official client's `set_approvals()` signs, so that `all_set` is true once the client has run it
 * (a required approval it never sends would leave its preflight warning forever). They cover our
 * own flows too: the managed-wallet redemption needs only the adapters' CTF operator rights.
 */
export const REQUIRED_APPROVALS: readonly ApprovalSpec[] = [
  ...CLIENT_PUSD_SPENDERS.map((s) => spec('pusd', POLYGON_CONTRACTS.pusd, s)),
  ...CLIENT_CTF_OPERATORS.map((s) => spec('ctf', POLYGON_CONTRACTS.ctf, s)),
];

/** Only needed to wrap USDC into pUSD through the onramp; reported, not part of `all_set`. */
export const ONRAMP_APPROVALS: readonly ApprovalSpec[] = [
  ...ONRAMP_SPENDERS.map((s) => spec('usdc_bridged', POLYGON_CONTRACTS.usdcBridged, s)),
  ...ONRAMP_SPENDERS.map((s) => spec('usdc_native', POLYGON_CONTRACTS.usdcNative, s)),
];

const ALL_APPROVALS = [...REQUIRED_APPROVALS, ...ONRAMP_APPROVALS];

function approvalTx(from: string, a: ApprovalSpec): UnsignedTx {
  const base = { from, to: a.contract, value: 0 as const, chainId: Number(POLYGON_CHAIN_ID) };
  // ERC-1155 approvals are all-or-nothing; ERC-20 ones are max uint256, as the official clients
  // sign them, so that one approval lasts for the wallet's life.
  if (a.token === 'ctf')
    return {
      ...base,
      data: encodeAllowedCall('setApprovalForAll', [a.spender, true]),
      kind: 'approve-ctf-operator',
    };
  return {
    ...base,
    data: encodeAllowedCall('approve', [a.spender, MaxUint256]),
    kind: a.token === 'pusd' ? 'approve-collateral' : 'approve-onramp',
  };
}

/**
 * The approvals to sign for the allowances keys `missing` (in the order of REQUIRED_APPROVALS then
 * ONRAMP_APPROVALS, each once). A key the service does not know is a bug of the caller, not a
 * client input, hence a throw.
 */
export function approvalTransactions(owner: string, missing: Iterable<string>): UnsignedTx[] {
  const from = getAddress(owner);
  const wanted = new Set([...missing].map((k) => k.toLowerCase()));
  for (const key of wanted)
    if (!ALL_APPROVALS.some((a) => a.key === key)) throw new RangeError(`unknown approval key ${key}`);
  return ALL_APPROVALS.filter((a) => wanted.has(a.key)).map((a) => approvalTx(from, a));
}

/**
 * The redemption of a resolved CTF market for `owner`, paid in pUSD: `redeemPositions(pUSD, 0,
 * conditionId, [1,2])` on the collateral adapter of the market's family (polymarket.md §8.3; the
 * adapter redeems the caller's whole balance of both outcomes). The wallet must have approved the
 * adapter as CTF operator first.
 */
export function redemptionTransaction(
  owner: string,
  market: { conditionId: string; negRisk: boolean },
): UnsignedTx {
  const { conditionId } = market;
  if (!isHexString(conditionId, 32) || BigInt(conditionId) === 0n)
    throw new RangeError(`not a condition id: ${conditionId}`);
  const adapter = market.negRisk
    ? POLYGON_CONTRACTS.negRiskCtfCollateralAdapter
    : POLYGON_CONTRACTS.ctfCollateralAdapter;
  return {
    from: getAddress(owner),
    to: adapter,
    data: encodeAllowedCall('redeemPositions', [
      POLYGON_CONTRACTS.pusd,
      `0x${'0'.repeat(64)}`,
      conditionId,
      [1, 2],
    ]),
    value: 0,
    chainId: Number(POLYGON_CHAIN_ID),
    kind: 'redeem',
  };
}
