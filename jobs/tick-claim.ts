import type { RedisClient } from '../shared/infra/redis.js';
import type { Logger } from '../shared/infra/logger.js';

/** node-cron's RunCoordinator (node-cron 4.6 `distributed` tasks), as its typings declare it. */
export interface RunCoordinator {
  shouldRun(key: string, ttlMs: number): boolean | Promise<boolean>;
}

/**
 * How long a tick's claim is kept. Far longer than the spread of one tick across schedulers (the
 * same second, or a few seconds of a stalled event loop), so that a late scheduler still finds the
 * claim; short enough that the keys stay few (a claim per tick: about 150 alive at a time).
 */
export const TICK_CLAIM_MS = 5 * 60_000;

/**
 * One run per tick however many jobs processes run: a Redis lease per tick. node-cron hands every
 * scheduler the same key for a tick (`<schedule>:<scheduled instant, ISO>`), and the first
 * `SET NX` on it wins; the others skip that tick. There is no leader to elect or fail over: when a
 * jobs process dies, the next tick is simply claimed by one still running.
 *
 * Chosen over BullMQ job schedulers (`upsertJobScheduler`), which would move the schedule table into
 * Redis and out of node-cron (the stack's scheduler), and over one long-lived leader lease, whose
 * expiry after a leader's death leaves ticks unrun for its length. The slot job ids stay: they keep a
 * job single even when two ticks of one slot do run (the claim could not be checked, see below, or
 * an operator's "run now").
 *
 * When Redis does not answer, the tick runs anyway (fail open): its enqueue needs Redis too and will
 * fail the same way, recorded in schedule_runs as a failed run, which is what an operator should see.
 */
export function redisTickClaims(redis: RedisClient, prefix: string, log: Logger): RunCoordinator {
  return {
    async shouldRun(key, ttlMs) {
      try {
        const won = await redis.set(`${prefix}:schedule-tick:${key}`, String(process.pid), 'PX', ttlMs, 'NX');
        return won === 'OK';
      } catch (err) {
        log.warn(
          { err: err instanceof Error ? err.message : String(err), key },
          'tick claim unavailable; running the tick',
        );
        return true;
      }
    },
  };
}
