import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type ScheduleTickDeps = Pick<InfraDeps, 'env' | 'log' | 'queues' | 'clock'> & { models: Models };

/** What the schedule table (schedule-table.ts) holds for each schedule. */
export interface ScheduleDefinition {
  /** Stable name: SCHEDULER_JOBS selects by it and schedule_runs is keyed by it. */
  name: string;
  /** Cron expression, evaluated in UTC (six fields when it has seconds). */
  cron: string;
  /** What a tick sets in motion, in one sentence for operators. */
  description: string;
  /** Only decides what is due and enqueues it: the work runs in workers, never in the tick. */
  tick: (deps: ScheduleTickDeps, scheduledAt: Date) => Promise<void>;
}

/** What running a tick needs (the jobs process and tests start schedules from just this). */
export type Tickable = Pick<ScheduleDefinition, 'name' | 'tick'>;

/**
 * Runs one tick and records its start, end and error in schedule_runs (node-cron keeps no history).
 * Resolves with the error message of a failed tick (logged, counted), or null.
 */
export async function recordedTick(
  deps: ScheduleTickDeps,
  spec: Tickable,
  scheduledAt: Date,
): Promise<string | null> {
  const { ScheduleRun } = deps.models;
  await ScheduleRun.updateOne(
    { _id: spec.name },
    { $set: { lastStartedAt: deps.clock() }, $inc: { runs: 1 } },
    { upsert: true },
  );
  try {
    await spec.tick(deps, scheduledAt);
    await ScheduleRun.updateOne(
      { _id: spec.name },
      { $set: { lastFinishedAt: deps.clock(), lastError: null } },
    );
    return null;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    deps.log.error({ err, schedule: spec.name }, 'schedule tick failed');
    await ScheduleRun.updateOne(
      { _id: spec.name },
      { $set: { lastFinishedAt: deps.clock(), lastError: message }, $inc: { failures: 1 } },
    ).catch(() => undefined);
    return message;
  }
}

/**
 * A tick of the jobs process: skipped (and counted as skipped) while an operator has the schedule
 * paused, recorded otherwise. The pause is read on every tick, so it holds for every jobs replica.
 */
export async function tickUnlessPaused(
  deps: ScheduleTickDeps,
  spec: Tickable,
  scheduledAt: Date,
): Promise<void> {
  const { ScheduleRun } = deps.models;
  const skipped = await ScheduleRun.updateOne(
    { _id: spec.name, paused: true },
    { $set: { lastSkippedAt: deps.clock() }, $inc: { skips: 1 } },
  );
  if (skipped.matchedCount > 0) return;
  await recordedTick(deps, spec, scheduledAt);
}
