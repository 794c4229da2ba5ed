import type { RedisClient } from './redis.js';
import { redisScript } from './redis-script.js';

/**
 * A Redis lease: one holder at a time among any number of processes. The holder renews it well
 * within `ttlMs`; when it dies the key expires and the next process to ask takes it. Each step is
 * one atomic script, so two processes never both believe they hold it after the same call (the
 * work done under it must still be idempotent: a holder that stalls past `ttlMs` loses it without
 * knowing until its next renewal).
 */

/** Takes the lease when free, renews it when ours; 1 if we hold it afterwards, else 0. */
const ACQUIRE_OR_RENEW = redisScript(`
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if not holder then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
`);

/** Gives the lease up when ours, so that another process takes it at once rather than at expiry. */
const RELEASE = redisScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
`);

export class RedisLease {
  constructor(
    private readonly redis: RedisClient,
    readonly key: string,
    readonly holder: string,
    private readonly ttlMs: number,
  ) {}

  /** Whether this holder has the lease now (taken or renewed). */
  async acquireOrRenew(): Promise<boolean> {
    return (await ACQUIRE_OR_RENEW(this.redis, [this.key], [this.holder, this.ttlMs])) === 1;
  }

  async release(): Promise<void> {
    await RELEASE(this.redis, [this.key], [this.holder]);
  }

  /** Who holds it now, if anyone. */
  async currentHolder(): Promise<string | null> {
    return this.redis.get(this.key);
  }
}
