import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from './logger.js';

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

const FIRST_WAIT_MS = 250;
const MAX_WAIT_MS = 10_000;

/**
 * `connectRedis` for a process starting up: while Redis does not answer (a compose stack where the
 * workers start first, Redis restarting), waits with backoff (250 ms doubling to 10 s, each wait
 * logged) and tries again, rather than exiting, so the process comes up once Redis does. A stop
 * signal still ends the process meanwhile (run-process.ts).
 */
export async function connectRedisWhenUp(
  url: string,
  profile: RedisProfile,
  name: string,
  log: Logger,
): Promise<Redis> {
  for (let attempt = 1; ; attempt++) {
    const redis = new Redis(url, { ...redisOptions(profile), connectionName: name });
    // Failures surface through connect()'s rejection; this only keeps ioredis from reporting them
    // as unhandled 'error' events too.
    const quiet = () => undefined;
    redis.on('error', quiet);
    try {
      await redis.connect();
      if (attempt > 1) log.info({ connection: name, attempts: attempt }, 'Redis answers now');
      return redis;
    } catch (err) {
      redis.disconnect();
      const delayMs = Math.min(FIRST_WAIT_MS * 2 ** (attempt - 1), MAX_WAIT_MS);
      log.warn(
        { connection: name, attempt, delayMs, err: err instanceof Error ? err.message : String(err) },
        'Redis is not reachable; waiting before trying again',
      );
      await new Promise((r) => setTimeout(r, delayMs));
    } finally {
      redis.off('error', quiet);
    }
  }
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
