import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';
import { CronExpressionParser } from 'cron-parser';
import { AppError } from '../../infra/errors.js';
import type { ScheduleRunRecord } from '../system/schedule-run.model.js';
import { recordedTick, type ScheduleDefinition } from './schedule-tick.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type ScheduleAdminDeps = Pick<InfraDeps, 'env' | 'log' | 'queues' | 'clock'> & { models: Models };

export type RunOutcome = 'succeeded' | 'failed' | 'running' | 'skipped';

export interface ScheduleView {
  name: string;
  cron: string;
  description: string;
  paused: boolean;
  paused_at: string | null;
  paused_by: string | null;
  runs: number;
  failures: number;
  skips: number;
  last_run: {
    started_at: string | null;
    finished_at: string | null;
    duration_ms: number | null;
    outcome: RunOutcome | null;
    error: string | null;
  };
  last_skipped_at: string | null;
  /** From the cron expression (UTC); a paused schedule still ticks then, and skips. */
  next_run_at: string;
}

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

/** The latest thing that happened to the schedule: a skip after the last start wins. */
function outcomeOf(run: Partial<ScheduleRunRecord>): RunOutcome | null {
  const started = run.lastStartedAt?.getTime() ?? -1;
  if (run.lastSkippedAt && run.lastSkippedAt.getTime() > started) return 'skipped';
  if (started < 0) return null;
  if (!run.lastFinishedAt || run.lastFinishedAt.getTime() < started) return 'running';
  return run.lastError ? 'failed' : 'succeeded';
}

export function nextRunAt(cron: string, from: Date): Date {
  return CronExpressionParser.parse(cron, { currentDate: from, tz: 'UTC' }).next().toDate();
}

function viewOf(spec: ScheduleDefinition, run: Partial<ScheduleRunRecord> | null, now: Date): ScheduleView {
  const r = run ?? {};
  const outcome = outcomeOf(r);
  const finished = outcome === 'succeeded' || outcome === 'failed' || outcome === 'skipped';
  return {
    name: spec.name,
    cron: spec.cron,
    description: spec.description,
    paused: r.paused ?? false,
    paused_at: iso(r.pausedAt),
    paused_by: r.pausedBy ?? null,
    runs: r.runs ?? 0,
    failures: r.failures ?? 0,
    skips: r.skips ?? 0,
    last_run: {
      started_at: iso(r.lastStartedAt),
      finished_at: iso(r.lastFinishedAt),
      duration_ms:
        finished && r.lastStartedAt && r.lastFinishedAt && r.lastFinishedAt >= r.lastStartedAt
          ? r.lastFinishedAt.getTime() - r.lastStartedAt.getTime()
          : null,
      outcome,
      error: r.lastError ?? null,
    },
    last_skipped_at: iso(r.lastSkippedAt),
    next_run_at: nextRunAt(spec.cron, now).toISOString(),
  };
}

function scheduleNamed(specs: readonly ScheduleDefinition[], name: string): ScheduleDefinition {
  const spec = specs.find((s) => s.name === name);
  if (!spec)
    throw new AppError(
      404,
      'schedule_not_found',
      `Schedule '${name}' not found`,
      `Use one of: ${specs.map((s) => s.name).join(', ')} (GET /api/admin/schedules lists them).`,
    );
  return spec;
}

/** Every schedule of the table, in table order, with what schedule_runs knows of it. */
export async function listSchedules(
  deps: ScheduleAdminDeps,
  specs: readonly ScheduleDefinition[],
): Promise<ScheduleView[]> {
  const runs = await deps.models.ScheduleRun.find({ _id: { $in: specs.map((s) => s.name) } }).lean();
  const byName = new Map(runs.map((r) => [r._id, r]));
  const now = deps.clock();
  return specs.map((spec) => viewOf(spec, byName.get(spec.name) ?? null, now));
}

async function viewNamed(deps: ScheduleAdminDeps, spec: ScheduleDefinition): Promise<ScheduleView> {
  return viewOf(spec, await deps.models.ScheduleRun.findById(spec.name).lean(), deps.clock());
}

/**
 * Pauses or resumes a schedule (persisted; the jobs process honours it on its next tick). Operators
 * call it through operator-actions.ts, which audits it.
 */
export async function setSchedulePaused(
  deps: ScheduleAdminDeps,
  specs: readonly ScheduleDefinition[],
  name: string,
  paused: boolean,
  /** Who paused it, as the operator audit trail names them. */
  pausedBy: string,
): Promise<ScheduleView> {
  const spec = scheduleNamed(specs, name);
  const at = deps.clock();
  await deps.models.ScheduleRun.updateOne(
    { _id: spec.name },
    { $set: paused ? { paused, pausedAt: at, pausedBy } : { paused, pausedAt: null, pausedBy: null } },
    { upsert: true },
  );
  return viewNamed(deps, spec);
}

/**
 * Runs the schedule's tick at once (a tick only enqueues, so this is cheap), paused or not: the
 * operator asked for it explicitly. Recorded like any run; answers the tick's error, if any, for
 * the audit trail (operator-actions.ts).
 */
export async function runScheduleNow(
  deps: ScheduleAdminDeps,
  specs: readonly ScheduleDefinition[],
  name: string,
): Promise<{ view: ScheduleView; error: string | null }> {
  const spec = scheduleNamed(specs, name);
  const error = await recordedTick(deps, spec, deps.clock());
  return { view: await viewNamed(deps, spec), error };
}
