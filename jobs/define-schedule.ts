import cron, { type ScheduledTask } from 'node-cron';
import type { Deps } from '../shared/composition/deps.js';
import {
  tickUnlessPaused,
  type ScheduleDefinition,
  type Tickable,
} from '../shared/domains/schedules/schedule-tick.js';
import { redisTickClaims, TICK_CLAIM_MS } from './tick-claim.js';

/** One tick as the jobs process runs it: skipped while an operator has the schedule paused. */
export const scheduledTick = (deps: Deps, spec: Tickable, scheduledAt: Date) => {
  deps.log.debug({ schedule: spec.name, scheduledAt: scheduledAt.toISOString() }, 'schedule tick');
  return tickUnlessPaused(deps, spec, scheduledAt);
};

/**
 * Runs a schedule with node-cron (UTC, no overlapping runs); each tick is recorded in schedule_runs,
 * since node-cron itself keeps no history and is not a durable queue. The task is `distributed`: each
 * tick is claimed in Redis first (tick-claim.ts), so that however many jobs processes run, one of
 * them runs it.
 */
export function startSchedule(deps: Deps, spec: Tickable & Pick<ScheduleDefinition, 'cron'>): ScheduledTask {
  const task = cron.schedule(spec.cron, (ctx) => scheduledTick(deps, spec, ctx.date), {
    name: spec.name,
    timezone: 'UTC',
    noOverlap: true,
    distributed: true,
    runCoordinator: redisTickClaims(deps.redis, deps.env.QUEUE_PREFIX, deps.log),
    distributedLease: TICK_CLAIM_MS,
  });
  task.on('execution:skipped', (ctx) =>
    deps.log.debug(
      { schedule: spec.name, scheduledAt: ctx.date.toISOString(), reason: ctx.reason },
      'schedule tick taken by another scheduler',
    ),
  );
  return task;
}
