import type { InfraDeps } from '../../../../infra/infra-deps.js';
import type { Models } from '../../../models.js';
import type { VenueRegistry } from '../../venue-registry.js';
import { backfillHolder } from '../../../wallets/backfill-holders.js';
import { isHolder } from '../../../positions/holder.js';
import { isRedeemable } from '../../../positions/redeemable.js';
import { redeemingWallet, type RedemptionScope } from './redeeming-wallet.js';
import { redemptionId } from '../../../wallets/redemption.model.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type AutoRedeemDeps = Pick<InfraDeps, 'env' | 'log' | 'queues' | 'clock'> & {
  models: Models;
  venues: VenueRegistry;
};

/** Markets resolved longer ago than this are left to `POST /api/sdk/redeem` (keeps the scan bounded). */
export const AUTO_REDEEM_LOOKBACK_DAYS = 30;

type Enqueued = RedemptionScope & { marketId: string };

/**
 * Job `auto-redeem` (every minute): the wallets the service signs for (a human's managed wallet, an
 * agent's own wallet) that hold winning shares of a Polymarket market resolved in the last
 * AUTO_REDEEM_LOOKBACK_DAYS, for agents with `auto_redeem_enabled`, each get a `redeem-position` job
 * named after the slot. Running twice in a slot enqueues once, and a redemption already done (or in
 * flight) is not signed again (redeem-position.ts), so each position is redeemed once. External
 * wallets are the client's to redeem (it signs).
 */
export async function enqueueAutoRedemptions(
  deps: Pick<AutoRedeemDeps, 'models' | 'queues' | 'clock' | 'env' | 'venues' | 'log'>,
  slot: string,
): Promise<{ enqueued: Enqueued[] }> {
  const since = new Date(deps.clock().getTime() - AUTO_REDEEM_LOOKBACK_DAYS * 86_400_000);
  const markets = await deps.models.Market.find(
    { status: 'resolved', resolvedAt: { $gte: since }, 'venueRef.venue': 'polymarket' },
    { status: 1, outcome: 1, payoutYesMicro: 1 },
  ).lean();
  if (markets.length === 0) return { enqueued: [] };
  const byId = new Map(markets.map((m) => [m._id, m]));
  const positions = await deps.models.Position.find({
    marketId: { $in: [...byId.keys()] },
    venue: 'polymarket',
    status: 'open',
  }).lean();
  const winning = positions.filter((p) => isRedeemable(p, byId.get(p.marketId)!));
  if (winning.length === 0) return { enqueued: [] };
  const agentIds = [...new Set(winning.map((p) => p.agentId))];
  const agents = await deps.models.Agent.find(
    { _id: { $in: agentIds }, autoRedeemEnabled: true, claimedBy: { $ne: null } },
    { claimedBy: 1 },
  ).lean();
  const ownerOf = new Map(agents.map((a) => [a._id, a.claimedBy!]));
  const ownWallet = new Map(
    (await deps.models.AgentWallet.find({ _id: { $in: agentIds } }, { address: 1 }).lean()).map((w) => [
      w._id,
      w.address,
    ]),
  );
  const todo = new Map<string, Enqueued>();
  for (const p of winning) {
    const userId = ownerOf.get(p.agentId);
    if (!userId) continue;
    // The wallet holding the position redeems it. An agent with a wallet of its own has two
    // candidates: a holder still unknown after the backfill is skipped (not redeemed from a guess)
    // until a later run knows it. Without one, its human's wallet is the only candidate.
    const own = ownWallet.get(p.agentId);
    let agentId: string | null = null;
    if (own) {
      const holder = p.holderAddress ?? (await backfillHolder(deps, p));
      if (!holder) {
        deps.log.warn({ positionId: p._id }, 'auto-redeem skips a position whose holder is unknown');
        continue;
      }
      if (isHolder({ venue: p.venue, holderAddress: holder }, own)) agentId = p.agentId;
    }
    todo.set(`${userId}\n${agentId}\n${p.marketId}`, { userId, agentId, marketId: p.marketId });
  }
  const enqueued: Enqueued[] = [];
  for (const r of todo.values()) {
    const wallet = await redeemingWallet(deps, r);
    if (wallet?.ownership !== 'managed') continue;
    const done = await deps.models.Redemption.exists({
      _id: redemptionId(wallet.address, r.marketId),
      status: 'redeemed',
    });
    if (done) continue;
    await deps.queues.enqueue('redeem-position', { ...r, attempt: `auto-${slot}` });
    enqueued.push(r);
  }
  return { enqueued };
}
