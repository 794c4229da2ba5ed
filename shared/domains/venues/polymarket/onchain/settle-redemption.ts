import type { InfraDeps } from '../../../../infra/infra-deps.js';
import type { Models } from '../../../models.js';
import { appendLedgerEntry } from '../../../ledger/ledger.js';
import { redemptionPayoutMicro } from '../../../positions/redeemable.js';
import { accept } from '../../../refusal.js';
import { yesPayoutMicro } from '../../../markets/resolution.js';
import { afterWrite } from '../../../../infra/faults.js';
import type { RedemptionRecord } from '../../../wallets/redemption.model.js';
import { scopePositions, type RedemptionScope } from './redeeming-wallet.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type SettleRedemptionDeps = Pick<InfraDeps, 'clock'> & { models: Models };

type SettleDeps = Pick<SettleRedemptionDeps, 'models' | 'clock'>;

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
 * pUSD arrived in the wallet; an agent's $SIM balance is not touched.
 */
export async function settleRedeemedPositions(
  deps: SettleDeps,
  redemption: Pick<RedemptionRecord, 'userId' | 'agentId' | 'marketId'>,
): Promise<number> {
  const market = await deps.models.Market.findById(redemption.marketId, {
    status: 1,
    outcome: 1,
    payoutYesMicro: 1,
  }).lean();
  if (!market || yesPayoutMicro(market) === null)
    throw new Error(`market ${redemption.marketId} is not resolved`);
  const scope = { userId: redemption.userId, agentId: redemption.agentId };
  for (const p of await unsettledPositions(deps, scope, redemption.marketId)) {
    await appendLedgerEntry(
      deps.models,
      p.agentId,
      `redeem-${p._id}`,
      { marketId: p.marketId, venue: 'polymarket', positionId: p._id },
      ({ position }) => {
        const held = position ?? p;
        const payout = redemptionPayoutMicro(held, market);
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
  return settled.reduce((sum, p) => sum + p.payoutMicro, 0);
}

/**
 * The end of a redemption transaction, from whoever sees its receipt first (the redeeming job or
 * the receipt follower): mined → its positions settled and the redemption `redeemed` with the
 * payout; reverted or dropped → `failed`, and the next request signs a new one. Null when the hash
 * is no redemption's (e.g. a client-signed one relayed before it was reported).
 */
export async function finishRedemption(
  deps: SettleDeps,
  hash: string,
  mined: boolean,
  error: string | null = null,
): Promise<RedemptionRecord | null> {
  const rec = await deps.models.Redemption.findOne({ txHash: hash }).lean();
  if (!rec || rec.status === 'redeemed') return rec;
  if (!mined) {
    const failed = await deps.models.Redemption.findOneAndUpdate(
      { _id: rec._id, txHash: hash, status: { $ne: 'redeemed' } },
      { $set: { status: 'failed', error: error ?? 'reverted' } },
      { returnDocument: 'after' },
    ).lean();
    return failed ?? (await deps.models.Redemption.findById(rec._id).lean());
  }
  // Mined before the service saw the market resolve (the chain can be ahead of the resolution job):
  // left `sent`, and finished by the sweep once the market is resolved (relayed-redemption.ts).
  const market = await deps.models.Market.findById(rec.marketId, {
    status: 1,
    outcome: 1,
    payoutYesMicro: 1,
  }).lean();
  if (!market || yesPayoutMicro(market) === null) return rec;
  const payoutMicro = await settleRedeemedPositions(deps, rec);
  const done = await deps.models.Redemption.findOneAndUpdate(
    { _id: rec._id, status: { $ne: 'redeemed' } },
    { $set: { status: 'redeemed', txHash: hash, payoutMicro, error: null, redeemedAt: deps.clock() } },
    { returnDocument: 'after' },
  ).lean();
  afterWrite(done !== null);
  return done ?? (await deps.models.Redemption.findById(rec._id).lean());
}
