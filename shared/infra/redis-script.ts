import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

export type RedisScript = (redis: Redis, keys: string[], args: (string | number)[]) => Promise<unknown>;

/**
 * A Lua script run atomically by Redis: by its SHA (one small round trip), loading the source only
 * when the server does not know it yet (after a restart or a SCRIPT FLUSH).
 */
export function redisScript(source: string): RedisScript {
  const sha = createHash('sha1').update(source).digest('hex');
  return async (redis, keys, args) => {
    try {
      return await redis.evalsha(sha, keys.length, ...keys, ...args);
    } catch (err) {
      if (!String((err as Error).message).startsWith('NOSCRIPT')) throw err;
      return redis.eval(source, keys.length, ...keys, ...args);
    }
  };
}
