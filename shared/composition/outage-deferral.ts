import type { Job } from 'bullmq';
import { isDatabaseUnavailable } from '../infra/database-unavailable.js';
import { isRedisUnavailable } from '../infra/redis-unavailable.js';

/** First wait after an outage error; doubled per deferral up to OUTAGE_MAX_DELAY_MS. */
export const OUTAGE_FIRST_DELAY_MS = 250;
const OUTAGE_MAX_DELAY_MS = 10_000;
/**
 * Deferrals before an outage spends attempts again: 250 ms doubling to 10 s, about 2.5 minutes in
 * all, longer than a supervised restart of the embedded database (15–17 s under load) or Redis.
 * Past that the job's own retries apply, and reconcile-trades settles what a failed job left.
 */
export const OUTAGE_MAX_DEFERRALS = 20;

/** How often this job was deferred for an outage: starts that neither failed an attempt nor stalled. */
const deferralsOf = (job: Job) =>
  Math.max(0, job.attemptsStarted - 1 - job.attemptsMade - (job.stalledCounter ?? 0));

/**
 * The wait before running a job again when it failed because the database or Redis was unreachable
 * (not because of the job): such a failure says nothing about the job, so it should not spend one
 * of its attempts (execute-trade has 8 over ~13 s, shorter than a database restart). `null` when the
 * error is the job's own, or the job has waited out outages long enough.
 */
export function outageDeferralMs(job: Job, err: unknown): number | null {
  if (!isDatabaseUnavailable(err) && !isRedisUnavailable(err)) return null;
  const deferrals = deferralsOf(job);
  if (deferrals >= OUTAGE_MAX_DEFERRALS) return null;
  return Math.min(OUTAGE_FIRST_DELAY_MS * 2 ** deferrals, OUTAGE_MAX_DELAY_MS);
}
