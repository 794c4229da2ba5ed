import { Redis, type RedisOptions } from 'ioredis';

/**
 * Two connection profiles (BullMQ "going to production"):
 * - `fail-fast` for request paths: no offline queue, so a Redis outage surfaces at once as a 503
 *   instead of a request hanging until the client times out;
 * - `retrying` for workers and blocking clients: reconnects forever, commands wait for it.
 */
export type RedisProfile = 'fail-fast' | 'retrying';

export function redisOptions(profile: RedisProfile): RedisOptions {
  const retryStrategy = (times: number) => Math.min(200 * times, 5000);
  return profile === 'fail-fast'
    ? {
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
        connectTimeout: 5000,
        retryStrategy,
        lazyConnect: true,
      }
    : {
        enableOfflineQueue: true,
        maxRetriesPerRequest: null,
        connectTimeout: 5000,
        retryStrategy,
        lazyConnect: true,
      };
}

export async function connectRedis(url: string, profile: RedisProfile, name: string): Promise<Redis> {
  const redis = new Redis(url, { ...redisOptions(profile), connectionName: name });
  await redis.connect();
  return redis;
}

/** Every key matching `pattern` (SCAN, so a large keyspace is walked without blocking Redis). */
export async function scanKeys(redis: Redis, pattern: string): Promise<string[]> {
  const keys = new Set<string>();
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    for (const key of batch) keys.add(key);
    cursor = next;
  } while (cursor !== '0');
  return [...keys];
}
