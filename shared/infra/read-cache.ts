import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

const inFlight = new Map<string, Promise<unknown>>();

/**
 * A short read-through cache in Redis for reads that many agents make with the same parameters
 * (market lists, leaderboard pages): at most one computation per key per `ttlSeconds` across every
 * API replica, and one per process at a time (no stampede when it expires). A Redis failure never
 * fails the read: it is computed directly.
 */
export async function cachedRead<T>(
  redis: Redis,
  prefix: string,
  name: string,
  params: unknown,
  ttlSeconds: number,
  compute: () => Promise<T>,
): Promise<T> {
  const key = `${prefix}:cache:${name}:${createHash('sha1').update(JSON.stringify(params)).digest('hex')}`;
  const pending = inFlight.get(key);
  if (pending) return pending as Promise<T>;
  const work = (async () => {
    const hit = await redis.get(key).catch(() => null);
    if (hit !== null) return JSON.parse(hit) as T;
    const value = await compute();
    await redis.set(key, JSON.stringify(value), 'EX', ttlSeconds).catch(() => undefined);
    return value;
  })();
  inFlight.set(key, work);
  try {
    return await work;
  } finally {
    inFlight.delete(key);
  }
}
