import type { InfraDeps } from '../../../../infra/infra-deps.js';
import type { Models } from '../../../models.js';
import { appendLedgerEntry } from '../../../ledger/ledger.js';
import { redemptionPayoutMicro } from '../../../positions/redeemable.js';
import { accept } from '../../../refusal.js';
import { yesPayoutMicro } from '../../../markets/resolution.js';
import type { MarketRecord } from '../../../markets/market.model.js';
import { afterWrite } from '../../../../infra/faults.js';
import type { PositionRecord } from '../../../positions/position.model.js';
import type { RedemptionRecord } from '../../../wallets/redemption.model.js';
import type { PolygonRpc } from './polygon-rpc.js';
import { scopeHolders, scopePositions, type RedemptionScope } from './redeeming-wallet.js';
import { verifyRedemptionReceipt } from './redemption-receipt.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type SettleRedemptionDeps = Pick<InfraDeps, 'clock'> & { models: Models; polygon: PolygonRpc };

type SettleDeps = Pick<SettleRedemptionDeps, 'models' | 'clock'>;

/**
 * What a client-signed redemption's receipt proved (redemption-receipt.ts): the wallets whose
 * tokens it redeemed and what they were paid. Positions held elsewhere are not settled by it, and
 * those it covers share no more than that payout.
 */
export interface RedemptionProof {
  holders: string[];
  payoutMicro: number;
}

/**
 * Whether a redemption with `proof` covers position `p`: held by a proven holder, or of unknown
 * holder (scopePositions takes those only where the wallet is their one candidate). Without a
 * proof (the service signed it, or the relayer executed the deposit wallet's batch): every one.
 */
export const coveredBy =
  (proof: Pick<RedemptionProof, 'holders'> | undefined) => (p: Pick<PositionRecord, 'holderAddress'>) =>
    !proof || !p.holderAddress || proof.holders.includes(p.holderAddress);

type Resolved = Pick<MarketRecord, 'status' | 'outcome'> & { payoutYesMicro?: number | null };

/** The positions of the scope's wallet in the market that a redemption with `proof` covers, in id order. */
async function coveredPositions(
  deps: Pick<SettleRedemptionDeps, 'models'>,
  redemption: Pick<RedemptionRecord, 'userId' | 'agentId' | 'marketId'>,
  proof: Pick<RedemptionProof, 'holders'> | undefined,
) {
  const scope = { userId: redemption.userId, agentId: redemption.agentId };
  return (await scopePositions(deps.models, scope, redemption.marketId))
    .filter(coveredBy(proof))
    .sort((a, b) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0));
}

/**
 * What the positions a redemption by `holders` covers are owed at the market's resolution: what
 * each settled one was paid, and what the shares of each other one pay. A receipt that proves
 * less paid to those holders redeemed only part of them (a legacy redemption of the losing index
 * set alone pays 0, one of explicit amounts can take fewer than they hold) and settles nothing:
 * settling them would book shares still in the wallet as redeemed. Decided from the receipt's
 * payout alone, never from what the wallet holds now, which anyone can add tokens to.
 */
export async function owedToHolders(
  deps: Pick<SettleRedemptionDeps, 'models'>,
  redemption: Pick<RedemptionRecord, 'userId' | 'agentId' | 'marketId'>,
  market: Resolved,
  holders: string[],
): Promise<number> {
  const covered = await coveredPositions(deps, redemption, { holders });
  return covered.reduce(
    (sum, p) => sum + (p.status === 'settled' ? p.payoutMicro : redemptionPayoutMicro(p, market)),
    0,
  );
}

/** The positions of the scope's wallet in the market that are not settled yet. */
export async function unsettledPositions(
  deps: Pick<SettleRedemptionDeps, 'models'>,
  scope: RedemptionScope,
  marketId: string,
) {
  return scopePositions(deps.models, scope, marketId, { status: { $ne: 'settled' } });
}

/**
 * Books a redemption that happened on-chain: each position of the scope's wallet in the market is
 * settled by one ledger entry `redeem-<positionId>` (what its shares pay at the resolution paid
 * out: the winning shares, or half of each at a void (50-50) one; the rest gone),
 * so doing this twice (the receipt follower and a retried job both finishing) settles once. The
 * pUSD arrived in the wallet; an agent's $SIM balance is not touched. With a `proof`, only the
 * positions it covers, and no more than it proves was paid: shared out in position-id order (each
 * gets what its shares pay while the proven payout lasts), so that a run after a crash half-way
 * hands out the same shares.
 */
export async function settleRedeemedPositions(
  deps: SettleDeps,
  redemption: Pick<RedemptionRecord, 'userId' | 'agentId' | 'marketId'>,
  proof?: RedemptionProof,
): Promise<number> {
  const market = await deps.models.Market.findById(redemption.marketId, {
    status: 1,
    outcome: 1,
    payoutYesMicro: 1,
  }).lean();
  if (!market || yesPayoutMicro(market) === null)
    throw new Error(`market ${redemption.marketId} is not resolved`);
  const scope = { userId: redemption.userId, agentId: redemption.agentId };
  const covered = await coveredPositions(deps, redemption, proof);
  const paidBefore = covered.filter((p) => p.status === 'settled').reduce((sum, p) => sum + p.payoutMicro, 0);
  let left = proof ? proof.payoutMicro - paidBefore : Number.POSITIVE_INFINITY;
  for (const p of covered.filter((q) => q.status !== 'settled')) {
    const cap = proof ? Math.max(0, Math.min(redemptionPayoutMicro(p, market), left)) : left;
    left -= cap;
    await appendLedgerEntry(
      deps.models,
      p.agentId,
      `redeem-${p._id}`,
      { marketId: p.marketId, venue: 'polymarket', positionId: p._id },
      ({ position }) => {
        const held = position ?? p;
        const payout = Math.min(redemptionPayoutMicro(held, market), cap);
        return accept({
          kind: 'venue-redeem',
          position: {
            sharesYesMicro: -held.sharesYesMicro,
            sharesNoMicro: -held.sharesNoMicro,
            costYesMicro: -held.costYesMicro,
            costNoMicro: -held.costNoMicro,
            realizedPnlMicro: payout - held.costYesMicro - held.costNoMicro,
            payoutMicro: payout,
            statusAfter: 'settled' as const,
          },
        });
      },
      deps.clock,
    );
  }
  // Counted from the settled positions, so a second run after a crash half-way reports the whole payout.
  const settled = await scopePositions(deps.models, scope, redemption.marketId, { status: 'settled' });
  return settled.filter(coveredBy(proof)).reduce((sum, p) => sum + p.payoutMicro, 0);
}

/**
 * The end of a redemption transaction, from whoever sees its receipt first (the redeeming job or
 * the receipt follower): mined → its positions settled and the redemption `redeemed` with the
 * payout; reverted or dropped → `failed`, and the next request signs a new one. A client-signed
 * one (`external`) settles only what its receipt proves the wallet redeemed (a receipt that proves
 * none fails it). Null when the hash is no redemption's (e.g. a client-signed one relayed before
 * it was reported).
 */
export async function finishRedemption(
  deps: SettleDeps & Pick<SettleRedemptionDeps, 'polygon'>,
  hash: string,
  mined: boolean,
  error: string | null = null,
): Promise<RedemptionRecord | null> {
  const rec = await deps.models.Redemption.findOne({ txHash: hash }).lean();
  if (!rec || rec.status === 'redeemed') return rec;
  if (!mined) return failRedemption(deps, rec, hash, error ?? 'reverted');
  // Mined before the service saw the market resolve (the chain can be ahead of the resolution job):
  // left `sent`, and finished by the sweep once the market is resolved (relayed-redemption.ts).
  const market = await deps.models.Market.findById(rec.marketId, {
    status: 1,
    outcome: 1,
    payoutYesMicro: 1,
    venueRef: 1,
  }).lean();
  if (!market || yesPayoutMicro(market) === null) return rec;
  let proof: RedemptionProof | undefined;
  if (rec.path === 'external') {
    const verdict = await verifyRedemptionReceipt(deps, hash, {
      conditionId: rec.conditionId,
      holders: await scopeHolders(deps.models, rec),
      owedMicro: (holders) => owedToHolders(deps, rec, market, holders),
    });
    // A node behind the one that saw it mined: the sweep looks again.
    if (!verdict.proven && (verdict.reason === 'pending' || verdict.reason === 'unknown')) return rec;
    if (!verdict.proven)
      return failRedemption(
        deps,
        rec,
        hash,
        `the receipt proves no redemption by ${rec.wallet} (${verdict.reason})`,
      );
    proof = { holders: verdict.holders, payoutMicro: verdict.payoutMicro };
  }
  const payoutMicro = await settleRedeemedPositions(deps, rec, proof);
  const done = await deps.models.Redemption.findOneAndUpdate(
    { _id: rec._id, status: { $ne: 'redeemed' } },
    { $set: { status: 'redeemed', txHash: hash, payoutMicro, error: null, redeemedAt: deps.clock() } },
    { returnDocument: 'after' },
  ).lean();
  afterWrite(done !== null);
  return done ?? (await deps.models.Redemption.findById(rec._id).lean());
}

async function failRedemption(deps: SettleDeps, rec: RedemptionRecord, hash: string, error: string) {
  const failed = await deps.models.Redemption.findOneAndUpdate(
    { _id: rec._id, txHash: hash, status: { $ne: 'redeemed' } },
    { $set: { status: 'failed', error } },
    { returnDocument: 'after' },
  ).lean();
  return failed ?? (await deps.models.Redemption.findById(rec._id).lean());
}
