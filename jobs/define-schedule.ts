import cron, { type ScheduledTask } from 'node-cron';
import type { Deps } from '../shared/composition/deps.js';

export interface ScheduleSpec {
  /** Stable name: SCHEDULER_JOBS selects by it and schedule_runs is keyed by it. */
  name: string;
  /** Cron expression, evaluated in UTC. */
  cron: string;
  /** Only decides what is due and enqueues it: the work runs in workers, never in the tick. */
  tick: (deps: Deps, scheduledAt: Date) => Promise<void>;
}

/**
 * Runs a schedule with node-cron (UTC, no overlapping runs) and records each run's start, end and
 * error in schedule_runs, since node-cron itself keeps no history and is not a durable queue.
 */
export function startSchedule(deps: Deps, spec: ScheduleSpec): ScheduledTask {
  const { ScheduleRun } = deps.models;
  const log = deps.log.child({ schedule: spec.name });
  return cron.schedule(
    spec.cron,
    async (ctx) => {
      const startedAt = deps.clock();
      await ScheduleRun.updateOne(
        { _id: spec.name },
        { $set: { lastStartedAt: startedAt }, $inc: { runs: 1 } },
        { upsert: true },
      );
      try {
        await spec.tick(deps, ctx.date);
        await ScheduleRun.updateOne(
          { _id: spec.name },
          { $set: { lastFinishedAt: deps.clock(), lastError: null } },
        );
      } catch (err) {
        log.error({ err }, 'schedule tick failed');
        await ScheduleRun.updateOne(
          { _id: spec.name },
          {
            $set: {
              lastFinishedAt: deps.clock(),
              lastError: err instanceof Error ? err.message : String(err),
            },
            $inc: { failures: 1 },
          },
        ).catch(() => undefined);
      }
    },
    { name: spec.name, timezone: 'UTC', noOverlap: true },
  );
}
