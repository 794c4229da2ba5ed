import type { RedisClient } from '../../infra/redis.js';
import { unavailable } from '../../infra/errors.js';
import { utcDay } from './counters.js';

/**
 * A per-subject count that resets at midnight UTC, kept in Redis so every API replica shares it.
 * `take` counts one use atomically and says whether it fitted under the limit (a use over the limit
 * is given back at once, so a refused call costs nothing); `giveBack` returns a use that turned out
 * not to count (e.g. a re-import that created nothing). A failing store is a 503: quotas fail closed.
 */
export class DailyQuota {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    /** e.g. `imports`, `troubleshoot`: part of the Redis key and of the 503 text. */
    private readonly name: string,
  ) {}

  private key(subject: string, now: Date) {
    return `${this.prefix}:${this.name}:${subject}:${utcDay(now)}`;
  }

  async take(
    subject: string,
    limit: number,
    now: Date,
  ): Promise<{ ok: boolean; used: number; remaining: number }> {
    const key = this.key(subject, now);
    const replies = await this.redis
      .multi()
      .incr(key)
      .expire(key, 2 * 24 * 3600)
      .exec()
      .catch((err: unknown) => {
        throw unavailable(`The ${this.name} quota`, err);
      });
    const [incrError, used] = replies?.[0] ?? [new Error('no reply'), null];
    if (incrError || typeof used !== 'number') throw unavailable(`The ${this.name} quota`, incrError);
    if (used > limit) {
      await this.redis.decr(key).catch(() => undefined);
      return { ok: false, used: limit, remaining: 0 };
    }
    return { ok: true, used, remaining: limit - used };
  }

  async giveBack(subject: string, now: Date): Promise<void> {
    await this.redis.decr(this.key(subject, now)).catch((err: unknown) => {
      throw unavailable(`The ${this.name} quota`, err);
    });
  }

  async used(subject: string, now: Date): Promise<number> {
    const v = await this.redis.get(this.key(subject, now)).catch((err: unknown) => {
      throw unavailable(`The ${this.name} quota`, err);
    });
    return Math.max(0, Number(v ?? 0));
  }
}

/** Seconds until the next midnight UTC, for Retry-After on a daily quota. */
export function secondsToUtcMidnight(now: Date): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
}
