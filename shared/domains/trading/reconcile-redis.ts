import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';
import { deleteMany, getMany, scanKeys } from '../../infra/redis.js';
import { reconcileCounters, type CounterRepairs } from '../limits/reconcile-counters.js';
import { idempotencyKeyPattern, tradeIdOfStoredIdempotency } from './idempotency.js';
import type { TradeModel } from './trade.model.js';
import { chunks } from '../../util/chunks.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type ReconcileRedisDeps = Pick<InfraDeps, 'env' | 'log' | 'redis' | 'clock'> & { models: Models };

const CHUNK = 500;

export interface RedisRepairs extends CounterRepairs {
  idempotencyKeys: number;
}

/**
 * Idempotency keys whose stored answer or claim points at a trade the database does not have are
 * deleted: a replay is then a new request (placed again), never the success of a lost trade.
 */
async function reconcileIdempotencyKeys(deps: ReconcileRedisDeps, Trade: TradeModel): Promise<number> {
  const keys = await scanKeys(deps.redis, idempotencyKeyPattern(deps.env.QUEUE_PREFIX));
  let removed = 0;
  for (const chunk of chunks(keys, CHUNK)) {
    const stored = await getMany(deps.redis, chunk);
    const pointing = chunk
      .map((key, k) => ({ key, tradeId: stored[k] ? tradeIdOfStoredIdempotency(stored[k]) : null }))
      .filter((p): p is { key: string; tradeId: string } => p.tradeId !== null);
    if (!pointing.length) continue;
    const found = await Trade.find({ _id: { $in: pointing.map((p) => p.tradeId) } }, { _id: 1 }).lean();
    const existing = new Set(found.map((t) => t._id));
    const missing = pointing.filter((p) => !existing.has(p.tradeId)).map((p) => p.key);
    if (missing.length) removed += await deleteMany(deps.redis, missing);
  }
  return removed;
}

/**
 * Brings what Redis says about trades back in line with the database after a crash: idempotency
 * answers and claims, daily counts and market cooldowns that point at trades the database lost are
 * removed or recounted (the embedded database killed before it wrote a trade; see
 * docs/benchmarks.md on its durability). Run at the start of the process that owns the embedded
 * database, before it serves: nothing may admit buys meanwhile (reconcile-counters.ts).
 */
export async function reconcileRedisWithDatabase(deps: ReconcileRedisDeps): Promise<RedisRepairs> {
  const { Trade } = deps.models;
  const idempotencyKeys = await reconcileIdempotencyKeys(deps, Trade);
  const counters = await reconcileCounters(deps.redis, deps.env.QUEUE_PREFIX, Trade, deps.clock());
  const repairs = { idempotencyKeys, ...counters };
  if (idempotencyKeys || counters.dailyCounts || counters.cooldowns)
    deps.log.warn(repairs, 'Redis pointed at trades the database does not have: repaired');
  return repairs;
}
