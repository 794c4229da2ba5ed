import { Interface, ZeroHash } from 'ethers';
import {
  transactionKnown,
  transactionReceipt,
  type BroadcastRpcDeps,
  type ReceiptLog,
} from './broadcast-rpc.js';
import { POLYGON_CONTRACTS } from './polygon-contracts.js';

/**
 * What a mined transaction proves was redeemed, read from its receipt the way the contracts write
 * it (sources: Gnosis `ConditionalTokens.redeemPositions`, Polymarket neg-risk-ctf-adapter
 * `NegRiskAdapter.redeemPositions`, ctf-exchange-v2 `CtfCollateralAdapter.redeemPositions` and
 * `CollateralToken.wrap`):
 * - a legacy redemption, sent to the CTF (collateral USDC.e, parent 0) or to the NegRiskAdapter:
 *   their `PayoutRedemption` names the caller, the wallet that held the tokens, and its payout;
 * - a collateral-adapter redemption (what `POST /api/sdk/redeem` hands out and the service signs):
 *   the adapter pulls the holder's tokens and redeems them itself, so the `PayoutRedemption` (the
 *   CTF's for a standard market, the NegRiskAdapter's for a neg-risk one) names the adapter; the
 *   holder is the `to` of the pUSD `Wrapped(caller = adapter, …)` that follows it, which mints the
 *   payout to the holder.
 * A deposit wallet redeems through the adapter like any wallet: `to` is the deposit wallet.
 */

const CTF_EVENTS = new Interface([
  'event PayoutRedemption(address indexed redeemer, address indexed collateralToken, bytes32 indexed parentCollectionId, bytes32 conditionId, uint256[] indexSets, uint256 payout)',
]);
const NEG_RISK_EVENTS = new Interface([
  'event PayoutRedemption(address indexed redeemer, bytes32 indexed conditionId, uint256[] amounts, uint256 payout)',
]);
const PUSD_EVENTS = new Interface([
  'event Wrapped(address indexed caller, address indexed asset, address indexed to, uint256 amount)',
]);

const C = POLYGON_CONTRACTS;
const lower = (a: string) => a.toLowerCase();

/** One redemption a receipt proves: whose tokens, which condition, what reached the holder (micro pUSD / USDC.e). */
export interface ProvenPayout {
  holder: string;
  conditionId: string;
  payoutMicro: number;
}

/** A `PayoutRedemption` by a collateral adapter, waiting for the `Wrapped` that names its holder. */
interface AdapterRedemption {
  adapter: string;
  conditionId: string;
  payout: bigint;
}

/** The adapter whose own redemption a PayoutRedemption of `emitter` by `redeemer` is, if any. */
function adapterOf(emitter: string, redeemer: string): string | null {
  if (emitter === lower(C.ctf) && redeemer === lower(C.ctfCollateralAdapter)) return redeemer;
  if (emitter === lower(C.negRiskAdapter) && redeemer === lower(C.negRiskCtfCollateralAdapter))
    return redeemer;
  return null;
}

const micro = (amount: bigint) => {
  if (amount > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`payout ${amount} out of range`);
  return Number(amount);
};

/**
 * The redemptions a successful receipt's logs prove, in order. Events are matched by the contract
 * that emitted them (a look-alike event from any other address proves nothing), and each adapter
 * redemption by the first `Wrapped` of the same adapter after it (an adapter call emits both, in
 * that order). The payout is what the holder received, never more than the redemption paid.
 */
export function provenPayouts(logs: readonly ReceiptLog[]): ProvenPayout[] {
  const proven: ProvenPayout[] = [];
  const waiting: AdapterRedemption[] = [];
  for (const log of logs) {
    const emitter = lower(log.address);
    if (emitter === lower(C.ctf)) {
      const e = CTF_EVENTS.parseLog(log);
      if (!e) continue;
      const [redeemer, collateral, parent, conditionId, , payout] = e.args as unknown as [
        string,
        string,
        string,
        string,
        bigint[],
        bigint,
      ];
      const adapter = adapterOf(emitter, lower(redeemer));
      if (adapter) waiting.push({ adapter, conditionId: lower(conditionId), payout });
      // A legacy CTF redemption pays USDC.e only for the positions of the markets' collateral.
      else if (lower(collateral) === lower(C.usdcBridged) && parent === ZeroHash)
        proven.push({ holder: lower(redeemer), conditionId: lower(conditionId), payoutMicro: micro(payout) });
    } else if (emitter === lower(C.negRiskAdapter)) {
      const e = NEG_RISK_EVENTS.parseLog(log);
      if (!e) continue;
      const [redeemer, conditionId, , payout] = e.args as unknown as [string, string, bigint[], bigint];
      const adapter = adapterOf(emitter, lower(redeemer));
      if (adapter) waiting.push({ adapter, conditionId: lower(conditionId), payout });
      else
        proven.push({ holder: lower(redeemer), conditionId: lower(conditionId), payoutMicro: micro(payout) });
    } else if (emitter === lower(C.pusd)) {
      const e = PUSD_EVENTS.parseLog(log);
      if (!e) continue;
      const [caller, , to, amount] = e.args as unknown as [string, string, string, bigint];
      const i = waiting.findIndex((w) => w.adapter === lower(caller));
      if (i < 0) continue;
      const [w] = waiting.splice(i, 1);
      const paid = amount < w!.payout ? amount : w!.payout;
      proven.push({ holder: lower(to), conditionId: w!.conditionId, payoutMicro: micro(paid) });
    }
  }
  return proven;
}

/** Why a receipt does not prove the redemption asked about. */
export type UnprovenReason =
  'unknown' | 'pending' | 'reverted' | 'no_redemption' | 'other_condition' | 'other_wallet' | 'partial';

export type RedemptionVerdict =
  { proven: true; holders: string[]; payoutMicro: number } | { proven: false; reason: UnprovenReason };

/**
 * Whether transaction `hash` redeemed condition `conditionId` from one of `holders` (the wallets
 * the reporting account holds its positions in), completely: mined with status 1, its logs prove
 * a redemption of that condition whose holder is one of them, and what it paid those holders is
 * at least what the account's positions held there are owed (`owedMicro`, settle-redemption.ts).
 * Less is a partial redemption: a legacy one of some index sets or of explicit amounts. Decided
 * from the receipt alone: a wallet's balance now says nothing of what the transaction redeemed
 * (anyone can send it a token afterwards, and it may have bought more since). A holder that held
 * more than the account's positions is paid more, and that completes them. Proven: the holders
 * it names and what they were paid in total. Otherwise why not. A transport failure throws
 * (VenueHttpError).
 */
export async function verifyRedemptionReceipt(
  deps: Pick<BroadcastRpcDeps, 'polygon'>,
  hash: string,
  expected: {
    conditionId: string;
    holders: readonly string[];
    owedMicro: (provenHolders: string[]) => Promise<number>;
  },
): Promise<RedemptionVerdict> {
  const receipt = await transactionReceipt(deps, hash);
  if (!receipt)
    return { proven: false, reason: (await transactionKnown(deps, hash)) ? 'pending' : 'unknown' };
  if (receipt.status !== 1) return { proven: false, reason: 'reverted' };
  const all = provenPayouts(receipt.logs);
  const condition = lower(expected.conditionId);
  const holders = new Set(expected.holders.map(lower));
  const ours = all.filter((p) => p.conditionId === condition && holders.has(p.holder));
  if (ours.length === 0) {
    const reason = all.some((p) => holders.has(p.holder))
      ? 'other_condition'
      : all.some((p) => p.conditionId === condition)
        ? 'other_wallet'
        : 'no_redemption';
    return { proven: false, reason };
  }
  const proven = [...new Set(ours.map((p) => p.holder))];
  const payoutMicro = ours.reduce((sum, p) => sum + p.payoutMicro, 0);
  if (payoutMicro < (await expected.owedMicro(proven))) return { proven: false, reason: 'partial' };
  return { proven: true, holders: proven, payoutMicro };
}
