import cron, { type ScheduledTask } from 'node-cron';
import type { Deps } from '../shared/composition/deps.js';
import {
  tickUnlessPaused,
  type ScheduleDefinition,
  type Tickable,
} from '../shared/domains/schedules/schedule-tick.js';

/** One tick as the jobs process runs it: skipped while an operator has the schedule paused. */
export const scheduledTick = (deps: Deps, spec: Tickable, scheduledAt: Date) =>
  tickUnlessPaused(deps, spec, scheduledAt);

/**
 * Runs a schedule with node-cron (UTC, no overlapping runs); each tick is recorded in schedule_runs,
 * since node-cron itself keeps no history and is not a durable queue.
 */
export function startSchedule(deps: Deps, spec: Tickable & Pick<ScheduleDefinition, 'cron'>): ScheduledTask {
  return cron.schedule(spec.cron, (ctx) => scheduledTick(deps, spec, ctx.date), {
    name: spec.name,
    timezone: 'UTC',
    noOverlap: true,
  });
}
