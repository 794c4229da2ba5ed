import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';
import type { SettingsCache } from '../limits/settings-cache.js';
import type { TierCache } from '../users/tier-cache.js';
import { STILL_QUEUED, countResume, settleAdmission, stopNeverRunTrade } from './trade-lifecycle.js';
import type { TradeRecord } from './trade.model.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type ReconcileTradesDeps = Pick<
  InfraDeps,
  'env' | 'log' | 'redis' | 'queues' | 'invalidation' | 'clock'
> & { models: Models; caches: SettingsCache & TierCache };

/** A trade untouched this long while pending or executing has lost its job, or the job gave up. */
const STALE_MS = 5 * 60_000;
/**
 * A pending trade is only stopped when it is at least this old: a wide margin over clock skew
 * between hosts and over an API that is slow to enqueue what it just recorded.
 */
const NEVER_RAN_MS = 15 * 60_000;
/** Release markers live two days (limits/counters.ts); older admissions have nothing left to give back. */
const SETTLE_WINDOW_MS = 2 * 24 * 3600_000;
/** Automatic resumes of one trade; after the last, an operator looks (the error log says which). */
export const MAX_RESUMES = 6;
const BATCH = 200;

type Counts = Record<'resumed' | 'stopped' | 'settled' | 'errors', number>;
type StuckTrade = Pick<TradeRecord, '_id' | 'status' | 'resumeCount' | 'createdAt'>;

/**
 * Settles what a lost or exhausted job left behind, so that no reservation or daily-limit count
 * hangs:
 * - an `executing` trade (part of it may have happened) runs again from a fresh job, with full
 *   attempts: execution is idempotent and resumes where it stopped;
 * - a `pending` trade no worker ever took is stopped (`failed`, nothing executed) and its limits
 *   given back — never run late, since its caller may have been told to retry; one whose job is
 *   missing only once it is older than NEVER_RAN_MS, one whose job failed for good at once;
 * - a buy that ended without filling but whose admission was not given back (a crash or a Redis
 *   outage in between) gives it back.
 */
export async function reconcileTrades(deps: ReconcileTradesDeps, now: Date): Promise<Counts> {
  const { Trade } = deps.models;
  const counts: Counts = { resumed: 0, stopped: 0, settled: 0, errors: 0 };
  const stuck = await Trade.find(
    {
      status: { $in: ['pending', 'executing'] },
      updatedAt: { $lt: new Date(now.getTime() - STALE_MS) },
      resumeCount: { $not: { $gte: MAX_RESUMES } },
    },
    { status: 1, resumeCount: 1, createdAt: 1 },
  )
    .sort({ updatedAt: 1 })
    .limit(BATCH)
    .lean();
  for (const t of stuck) {
    try {
      await reconcileOne(deps, t, now, counts);
    } catch (err) {
      counts.errors++;
      deps.log.warn({ err, tradeId: t._id }, 'stuck trade not reconciled this time');
    }
  }

  const unsettled = await Trade.find(
    {
      status: { $in: ['failed', 'rejected'] },
      admission: { $ne: null },
      admissionSettled: { $ne: true },
      updatedAt: { $lt: new Date(now.getTime() - STALE_MS), $gt: new Date(now.getTime() - SETTLE_WINDOW_MS) },
    },
    { _id: 1 },
  )
    .limit(BATCH)
    .lean();
  for (const t of unsettled) {
    try {
      await settleAdmission(deps, t._id);
      counts.settled++;
    } catch (err) {
      counts.errors++;
      deps.log.warn({ err, tradeId: t._id }, 'admission not given back this time');
    }
  }
  return counts;
}

async function reconcileOne(deps: ReconcileTradesDeps, t: StuckTrade, now: Date, counts: Counts) {
  const job = await deps.queues.findJob('execute-trade', { tradeId: t._id });
  const state = job ? await job.getState() : 'missing';
  if (STILL_QUEUED.has(state)) return;

  if (t.status === 'pending') {
    // A missing job may be one the API has yet to enqueue; a job that failed for good runs no more.
    if (state !== 'failed' && (t.createdAt?.getTime() ?? 0) > now.getTime() - NEVER_RAN_MS) return;
    if (await stopNeverRunTrade(deps, t._id, now)) counts.stopped++;
    return;
  }

  // Guarded by the count read: a trade that finished meanwhile, or another run, leaves it alone.
  const resumes = await countResume(deps.models, t);
  if (resumes === null) return;
  // A fresh job (full attempts and backoff); re-adding the same id needs the old one gone.
  await job?.remove();
  await deps.queues.enqueue('execute-trade', { tradeId: t._id });
  counts.resumed++;
  if (resumes >= MAX_RESUMES)
    deps.log.error(
      { tradeId: t._id, resumes },
      'trade resumed for the last time automatically; if it does not finish, retry it in /admin/queues',
    );
}
