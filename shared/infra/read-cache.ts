import { createHash } from 'node:crypto';
import type { RedisClient } from './redis.js';
import { LocalCache } from './local-cache.js';

const inFlight = new Map<string, Promise<unknown>>();

/**
 * This process's copy of each value, parsed once, until its Redis entry expires (at most 60 s:
 * READ_CACHE_SECONDS is at most 60, wallet positions 30). Bounded: a list body is tens of kB.
 */
const local = new LocalCache<unknown>(256, () => 60_000);

/**
 * A short read-through cache in Redis for reads that many agents make with the same parameters
 * (market lists, leaderboard pages): at most one computation per key per `ttlSeconds` across every
 * API replica, and one per process at a time (no stampede when it expires). Each process keeps the
 * parsed value until the Redis entry expires, so a hit costs neither a round trip nor a parse: the
 * value is shared, callers must not change it. A Redis failure never fails the read: it is computed
 * directly.
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
  if (kept !== undefined) return kept as T;
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
      if (typeof ttlMs === 'number' && ttlMs > 0) local.set(key, value, askedAt + ttlMs);
      return value;
    }
    const value = await compute();
    const stored = await redis
      .set(key, JSON.stringify(value), 'EX', ttlSeconds)
      .then(() => true)
      .catch(() => false);
    if (stored) local.set(key, value, askedAt + ttlSeconds * 1000);
    return value;
  })();
  inFlight.set(key, work);
  try {
    return await work;
  } finally {
    inFlight.delete(key);
  }
}
