import type { Deps } from '../../composition/deps.js';
import { walletOf } from '../wallets/managed-wallet.js';
import { redemptionId } from './redemption.model.js';
import { isRedeemable } from '../positions/redeemable.js';

/** Markets resolved longer ago than this are left to `POST /api/sdk/redeem` (keeps the scan bounded). */
export const AUTO_REDEEM_LOOKBACK_DAYS = 30;

/**
 * Job `auto-redeem` (every minute): the managed wallets holding winning shares of a Polymarket
 * market resolved in the last AUTO_REDEEM_LOOKBACK_DAYS, for agents with `auto_redeem_enabled`,
 * each get a `redeem-position` job named after the slot. Running twice in a slot enqueues once, and
 * a redemption already done (or in flight) is not signed again (redeem-position.ts), so each
 * position is redeemed once. External wallets are the client's to redeem (it signs).
 */
export async function enqueueAutoRedemptions(
  deps: Pick<Deps, 'models' | 'queues' | 'clock'>,
  slot: string,
): Promise<{ enqueued: { userId: string; marketId: string }[] }> {
  const since = new Date(deps.clock().getTime() - AUTO_REDEEM_LOOKBACK_DAYS * 86_400_000);
  const markets = await deps.models.Market.find(
    { status: 'resolved', resolvedAt: { $gte: since }, polymarketId: { $ne: null } },
    { status: 1, outcome: 1 },
  ).lean();
  if (markets.length === 0) return { enqueued: [] };
  const byId = new Map(markets.map((m) => [m._id, m]));
  const positions = await deps.models.Position.find(
    { marketId: { $in: [...byId.keys()] }, venue: 'polymarket', status: 'open' },
    { agentId: 1, marketId: 1, venue: 1, status: 1, sharesYesMicro: 1, sharesNoMicro: 1 },
  ).lean();
  const winning = positions.filter((p) => isRedeemable(p, byId.get(p.marketId)!));
  if (winning.length === 0) return { enqueued: [] };
  const agents = await deps.models.Agent.find(
    {
      _id: { $in: [...new Set(winning.map((p) => p.agentId))] },
      autoRedeemEnabled: true,
      claimedBy: { $ne: null },
    },
    { claimedBy: 1 },
  ).lean();
  const ownerOf = new Map(agents.map((a) => [a._id, a.claimedBy!]));
  const pairs = new Map<string, { userId: string; marketId: string }>();
  for (const p of winning) {
    const userId = ownerOf.get(p.agentId);
    if (userId) pairs.set(`${userId}\n${p.marketId}`, { userId, marketId: p.marketId });
  }
  const enqueued: { userId: string; marketId: string }[] = [];
  for (const { userId, marketId } of pairs.values()) {
    const wallet = await walletOf(deps, { kind: 'user', id: userId });
    if (wallet?.ownership !== 'managed') continue;
    const done = await deps.models.Redemption.exists({
      _id: redemptionId(wallet.address, marketId),
      status: 'redeemed',
    });
    if (done) continue;
    await deps.queues.enqueue('redeem-position', { userId, marketId, attempt: `auto-${slot}` });
    enqueued.push({ userId, marketId });
  }
  return { enqueued };
}
