import { createHash } from 'node:crypto';
import type { RedisClient } from './redis.js';
import { LocalCache } from './local-cache.js';

const inFlight = new Map<string, Promise<unknown>>();
/** Keys whose refresh-ahead is running in this process (at most one per key). */
const refreshing = new Set<string>();

/**
 * This process's copy of each value, parsed once, until its Redis entry expires (at most 60 s:
 * READ_CACHE_SECONDS is at most 60, wallet positions 30). Bounded: a list body is tens of kB.
 */
const local = new LocalCache<{ value: unknown; expiresAt: number; ttlSeconds: number }>(256, () => 60_000);

/**
 * A value read in the last quarter of its life (at most its last second) is refreshed ahead: the
 * request gets the current value at once, and one background computation replaces it in Redis
 * and here before it expires, so that a key read steadily is never computed in front of a request.
 */
export function refreshAheadMs(ttlSeconds: number): number {
  return Math.min(1000, (ttlSeconds * 1000) / 4);
}

async function store<T>(redis: RedisClient, key: string, value: T, ttlSeconds: number, startedAt: number) {
  const stored = await redis
    .set(key, JSON.stringify(value), 'EX', ttlSeconds)
    .then(() => true)
    .catch(() => false);
  const expiresAt = startedAt + ttlSeconds * 1000;
  if (stored) local.set(key, { value, expiresAt, ttlSeconds }, expiresAt);
}

function refreshAhead<T>(
  redis: RedisClient,
  key: string,
  ttlSeconds: number,
  compute: () => Promise<T>,
): void {
  if (refreshing.has(key)) return;
  refreshing.add(key);
  const startedAt = performance.now();
  void compute()
    .then((value) => store(redis, key, value, ttlSeconds, startedAt))
    // A failed refresh changes nothing: the current value serves until it expires, then a request computes.
    .catch(() => undefined)
    .finally(() => refreshing.delete(key));
}

/**
 * A short read-through cache in Redis for reads that many agents make with the same parameters
 * (market lists, leaderboard pages): at most one computation per key per `ttlSeconds` across every
 * API replica, and one per process at a time (no stampede when it expires). Each process keeps the
 * parsed value until the Redis entry expires, so a hit costs neither a round trip nor a parse: the
 * value is shared, callers must not change it. A Redis failure never fails the read: it is computed
 * directly. A value close to its expiry is refreshed ahead, in the background (refreshAheadMs).
 */
export async function cachedRead<T>(
  redis: RedisClient,
  prefix: string,
  name: string,
  params: unknown,
  ttlSeconds: number,
  compute: () => Promise<T>,
): Promise<T> {
  const key = `${prefix}:cache:${name}:${createHash('sha1').update(JSON.stringify(params)).digest('hex')}`;
  const kept = local.get(key);
  if (kept !== undefined) {
    if (kept.expiresAt - performance.now() <= refreshAheadMs(kept.ttlSeconds))
      refreshAhead(redis, key, ttlSeconds, compute);
    return kept.value as T;
  }
  const pending = inFlight.get(key);
  if (pending) return pending as Promise<T>;
  const work = (async () => {
    const askedAt = performance.now();
    const [hit, ttlMs] = await redis
      .multi()
      .get(key)
      .pttl(key)
      .exec()
      .then((res) => [res?.[0]?.[1], res?.[1]?.[1]] as [unknown, unknown])
      .catch(() => [null, null]);
    if (typeof hit === 'string') {
      const value = JSON.parse(hit) as T;
      if (typeof ttlMs === 'number' && ttlMs > 0) {
        const expiresAt = askedAt + ttlMs;
        local.set(key, { value, expiresAt, ttlSeconds }, expiresAt);
        if (ttlMs <= refreshAheadMs(ttlSeconds)) refreshAhead(redis, key, ttlSeconds, compute);
      }
      return value;
    }
    const value = await compute();
    await store(redis, key, value, ttlSeconds, askedAt);
    return value;
  })();
  inFlight.set(key, work);
  try {
    return await work;
  } finally {
    inFlight.delete(key);
  }
}
