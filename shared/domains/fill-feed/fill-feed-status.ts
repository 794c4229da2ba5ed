import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';
import { isExternalAdapter, type VenueRegistry } from '../venues/venue-registry.js';
import { fillFeedLeaseKey } from './fill-feed-follower.js';

export type FillFeedStatusDeps = Pick<InfraDeps, 'env' | 'clock' | 'redis' | 'mongo'> & {
  models: Pick<Models, 'VenueFill' | 'FillFeedCursor'>;
  venues: VenueRegistry;
};

/** Reactor's signals, written by its workers (shared/domains/reactor/): counted here by name only. */
const SIGNALS_COLLECTION = 'reactor_signals';
const MINUTE_MS = 60_000;

/**
 * The fill feed as the operator sees it (GET /api/admin/fill-feed, the console's Venues page): per
 * venue followed, the cursor, the chain's head at the last poll, the lag in blocks and in the
 * chain's seconds, and the fills stored in the last minute; the Reactor signals written in the
 * last minute; the process holding the lease. Read from the cursors and the store, so every API
 * process answers the same whichever workers process follows.
 */
export async function fillFeedStatus(deps: FillFeedStatusDeps) {
  const now = deps.clock();
  const since = new Date(now.getTime() - MINUTE_MS);
  // Only external venues publish fills: their ids are what the fills and cursors are keyed by.
  const followed = deps.venues
    .all()
    .filter(isExternalAdapter)
    .filter((a) => !!a.fillFeed);
  const [cursors, holder, signalsPerMinute] = await Promise.all([
    deps.models.FillFeedCursor.find({ _id: { $in: followed.map((a) => a.id) } }).lean(),
    deps.redis.get(fillFeedLeaseKey(deps.env.QUEUE_PREFIX)),
    deps.mongo.db!.collection(SIGNALS_COLLECTION).countDocuments({ createdAt: { $gte: since } }),
  ]);
  const venues = await Promise.all(
    followed.map(async ({ id }) => {
      const c = cursors.find((x) => x._id === id);
      const fillsPerMinute = await deps.models.VenueFill.countDocuments({
        venue: id,
        recordedAt: { $gte: since },
      });
      return {
        venue: id,
        cursor_block: c?.block ?? null,
        cursor_block_at: c?.blockAt.toISOString() ?? null,
        head_block: c?.head ?? null,
        head_at: c?.headAt.toISOString() ?? null,
        lag_blocks: c ? Math.max(0, c.head - c.block) : null,
        lag_seconds: c ? Math.max(0, (c.headAt.getTime() - c.blockAt.getTime()) / 1000) : null,
        final_block: c ? Math.max(0, c.head - deps.env.FILL_FEED_CONFIRMATIONS) : null,
        polled_at: c?.polledAt.toISOString() ?? null,
        fills_per_minute: fillsPerMinute,
      };
    }),
  );
  return {
    enabled: deps.env.FILL_FEED_ENABLED,
    poll_ms: deps.env.FILL_FEED_POLL_MS,
    confirmations: deps.env.FILL_FEED_CONFIRMATIONS,
    holder,
    signals_per_minute: signalsPerMinute,
    venues,
  };
}

export type FillFeedStatus = Awaited<ReturnType<typeof fillFeedStatus>>;
