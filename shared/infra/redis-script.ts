import { createHash } from 'node:crypto';
import type { RedisClient } from './redis.js';

export type RedisScript = (redis: RedisClient, keys: string[], args: (string | number)[]) => Promise<unknown>;

/**
 * A Lua script run atomically by Redis: by its SHA (one small round trip), loading the source only
 * when the server does not know it yet (after a restart or a SCRIPT FLUSH). On a cluster both
 * commands go to the master of the keys' slot (every script's keys share one, see their callers),
 * so the fallback loads the script on exactly the node that did not know it: a replica promoted
 * by a failover starts with an empty script cache and learns it on its first call.
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
