import type { InfraDeps } from '../../infra/infra-deps.js';
import type { SettingsCache } from '../limits/settings-cache.js';
import type { TierCache } from '../users/tier-cache.js';
import { randomUUID } from 'node:crypto';
import { AppError } from '../../infra/errors.js';
import { afterWrite } from '../../infra/faults.js';
import { admissionToGiveBack, releaseTrade } from '../limits/trade-guard.js';
import type { Models } from '../models.js';
import type { Refusal } from '../refusal.js';
import { FINAL_TRADE_STATUSES, type TradeRecord } from './trade.model.js';
import type { TradeResult } from './trade.schemas.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type TradeLifecycleDeps = Pick<InfraDeps, 'env' | 'redis' | 'queues' | 'invalidation' | 'clock'> & {
  models: Models;
  caches: SettingsCache & TierCache;
};

/**
 * Every status change of a trade record, in one place. The API creates a trade `pending`; a worker
 * claims it (`executing`) and finishes it `filled` or `rejected`; a trade no worker took is stopped
 * (`failed`); the reconcile job resumes a lost `executing` one. Each write carries its guard in the
 * filter (the status it leaves, the resume count it read), so a replayed or concurrent step
 * changes nothing: crash and stress tests rely on exactly these guards.
 */
type TradeModels = Pick<Models, 'Trade'>;

export type TradeFill = NonNullable<TradeRecord['fill']>;
/** `open`: a venue order still working (resting, delayed): the order sync finishes it later. */
export type TradeOutcome = { refusal: Refusal } | { fill: TradeFill; open?: boolean };

/** `pending` → `executing`: the claimed trade, or null when it was not pending (taken, finished or stopped). */
export async function claimTrade(
  models: TradeModels,
  tradeId: string,
  now: Date,
): Promise<TradeRecord | null> {
  const trade = await models.Trade.findOneAndUpdate(
    { _id: tradeId, status: 'pending' },
    { $set: { status: 'executing', executedAt: now } },
    { returnDocument: 'after' },
  ).lean();
  if (trade) afterWrite();
  return trade;
}

/** The fields that end a trade with `outcome` (its status, answer and fill or refusal). */
function finishFields(result: TradeResult, outcome: TradeOutcome, now: Date): Record<string, unknown> {
  const set: Record<string, unknown> = {
    status: 'refusal' in outcome ? 'rejected' : outcome.open ? 'open' : 'filled',
    result,
    finishedAt: now,
  };
  if ('refusal' in outcome) {
    const { refusal } = outcome;
    Object.assign(set, {
      errorCode: refusal.errorCode,
      failureCategory: refusal.category,
      failureReason: refusal.error,
    });
  } else set.fill = outcome.fill;
  return set;
}

/** An outcome that could not be recorded: never answered as if it had been. */
export const outcomeNotRecorded = (tradeId: string, status: string | undefined) =>
  new AppError(
    503,
    'trade_outcome_not_recorded',
    `The outcome of trade ${tradeId} could not be recorded (it is ${status ?? 'missing'}, not executing)`,
    'The job tries again.',
    { retryable: true },
  );

/**
 * `executing` → `filled` | `rejected`, once, with the answer the client gets. A concurrent or
 * earlier finish wins: its stored answer is returned instead. A trade that is neither executing nor
 * finished is not answered (a retryable error): the client is told only what the record says.
 */
export async function finishTrade(
  models: TradeModels,
  tradeId: string,
  result: TradeResult,
  outcome: TradeOutcome,
  now: Date,
): Promise<TradeResult> {
  const updated = await models.Trade.updateOne(
    { _id: tradeId, status: 'executing' },
    { $set: finishFields(result, outcome, now) },
  );
  afterWrite(updated.matchedCount > 0);
  if (updated.matchedCount === 0) {
    const stored = await models.Trade.findById(tradeId, { result: 1, status: 1 }).lean();
    if (stored && FINAL_TRADE_STATUSES.includes(stored.status) && stored.result)
      return stored.result as TradeResult;
    throw outcomeNotRecorded(tradeId, stored?.status);
  }
  return result;
}

/**
 * `pending` → `executing` for many trades in two round trips (one for a single trade; the group commit's claim): the ones
 * this call claimed, told apart by a claim id of its own. The others were taken, finished or stopped.
 */
export async function claimTrades(
  models: TradeModels,
  tradeIds: string[],
  now: Date,
): Promise<TradeRecord[]> {
  if (tradeIds.length === 1) {
    const claimed = await claimTrade(models, tradeIds[0]!, now);
    return claimed ? [claimed] : [];
  }
  const claimId = randomUUID();
  // One guarded update per trade (by `_id` and status, the filter every database serves from an
  // index), sent together; the trades that now carry this claim id are this call's.
  const claimed = await models.Trade.bulkWrite(
    tradeIds.map((id) => ({
      updateOne: {
        filter: { _id: id, status: 'pending' },
        update: { $set: { status: 'executing', executedAt: now, claimId } },
      },
    })),
    { ordered: false },
  );
  afterWrite(claimed.modifiedCount > 0);
  if (claimed.modifiedCount === 0) return [];
  const found = await models.Trade.find({ _id: { $in: tradeIds } }).lean();
  return found.filter((t) => t.claimId === claimId && t.status === 'executing');
}

/**
 * Many `finishTrade`s in one round trip. The answers, by trade id: the given one, or the stored one
 * when another finish came first. A trade neither executing nor finished gets no answer here.
 */
export async function finishTrades(
  models: TradeModels,
  finishes: { tradeId: string; result: TradeResult; outcome: TradeOutcome }[],
  now: Date,
): Promise<Map<string, TradeResult>> {
  const answers = new Map(finishes.map((f) => [f.tradeId, f.result]));
  if (!finishes.length) return answers;
  const written = await models.Trade.bulkWrite(
    finishes.map((f) => ({
      updateOne: {
        filter: { _id: f.tradeId, status: 'executing' },
        update: { $set: finishFields(f.result, f.outcome, now) },
      },
    })),
    { ordered: false },
  );
  afterWrite(written.matchedCount > 0);
  if (written.matchedCount < finishes.length) {
    const stored = await models.Trade.find(
      { _id: { $in: finishes.map((f) => f.tradeId) } },
      { result: 1, status: 1 },
    ).lean();
    const byId = new Map(stored.map((t) => [t._id, t]));
    for (const f of finishes) {
      const t = byId.get(f.tradeId);
      // This call's own write, or another finish before it: the record's answer either way.
      if (t && FINAL_TRADE_STATUSES.includes(t.status) && t.result)
        answers.set(t._id, t.result as TradeResult);
      else answers.delete(f.tradeId);
    }
  }
  return answers;
}

/**
 * `open` → `filled` | `canceled`: the venue is done with the order (the order sync, or a cancel).
 * Once: a concurrent close leaves it as it found it.
 */
export async function closeOpenTrade(
  models: TradeModels,
  tradeId: string,
  close: { status: 'filled' | 'canceled'; result: TradeResult; fill: TradeFill; now: Date },
): Promise<boolean> {
  const closed = await models.Trade.updateOne(
    { _id: tradeId, status: 'open' },
    {
      $set: {
        status: close.status,
        result: close.result,
        fill: close.fill,
        finishedAt: close.now,
        ...(close.status === 'filled' ? { lateEffectsQueued: false } : {}),
      },
    },
  );
  return closed.modifiedCount > 0;
}

/**
 * A fill the venue made after the trade job has the effects of one made at once (trade.executed, the
 * buy's monitor, price alerts): a late after-trade-fill job of its own id, then the mark that it is
 * queued. Queuing twice queues nothing.
 */
export async function queueLateFillEffects(
  deps: Pick<TradeLifecycleDeps, 'models' | 'queues'>,
  tradeId: string,
) {
  await deps.queues.enqueue('after-trade-fill', { tradeId, late: true });
  await deps.models.Trade.updateOne({ _id: tradeId }, { $set: { lateEffectsQueued: true } });
}

/** Closes whose effects were not queued (Redis failed right after the close): queued now. */
export async function requeueLateFillEffects(deps: Pick<TradeLifecycleDeps, 'models' | 'queues'>, now: Date) {
  const missed = await deps.models.Trade.find(
    { status: 'filled', lateEffectsQueued: false, finishedAt: { $lt: new Date(now.getTime() - 30_000) } },
    { _id: 1 },
  )
    .limit(200)
    .lean();
  for (const t of missed) await queueLateFillEffects(deps, t._id);
  return missed.length;
}

/**
 * `pending` → `failed` with nothing executed, for a trade whose caller was told it failed or that no
 * worker ever took. False when a worker claimed it first: then it runs to its end.
 */
export async function stopPendingTrade(
  models: TradeModels,
  tradeId: string,
  reason: string,
  now: Date,
): Promise<boolean> {
  const stopped = await models.Trade.updateOne(
    { _id: tradeId, status: 'pending' },
    { $set: { status: 'failed', failureCategory: 'internal', failureReason: reason, finishedAt: now } },
  );
  return stopped.modifiedCount > 0;
}

/** Job states in which a trade's job may still run. */
export const STILL_QUEUED = new Set(['waiting', 'active', 'delayed', 'prioritized', 'waiting-children']);

/** The state of a trade's execute job; `missing` when there is none. */
export async function tradeJobState(
  deps: Pick<TradeLifecycleDeps, 'queues'>,
  tradeId: string,
): Promise<string> {
  const job = await deps.queues.findJob('execute-trade', { tradeId });
  return job ? job.getState() : 'missing';
}

/**
 * Stops a pending trade that no worker will take (its job is gone or failed for good) and gives its
 * admission back: nothing was executed. False when a worker took it after all.
 */
export async function stopNeverRunTrade(
  deps: TradeLifecycleDeps,
  tradeId: string,
  now: Date,
): Promise<boolean> {
  const stopped = await stopPendingTrade(
    deps.models,
    tradeId,
    'The trade never ran: its job was lost or failed before a worker took it. Nothing was executed.',
    now,
  );
  if (stopped) await settleAdmission(deps, tradeId);
  return stopped;
}

/**
 * Counts one more automatic resume of an `executing` trade, guarded by the count read: a trade that
 * finished meanwhile, or another reconcile run, leaves it alone. The new count, or null.
 */
export async function countResume(
  models: TradeModels,
  trade: Pick<TradeRecord, '_id' | 'resumeCount'>,
): Promise<number | null> {
  const resumes = (trade.resumeCount ?? 0) + 1;
  const counted = await models.Trade.updateOne(
    { _id: trade._id, status: 'executing', resumeCount: trade.resumeCount ?? null },
    { $set: { resumeCount: resumes } },
  );
  return counted.modifiedCount > 0 ? resumes : null;
}

/**
 * A buy that ended without filling (`rejected` by the worker, or `failed` before it ran) gives back
 * its admission, once however often this runs, and records that it did: the reconcile job repeats
 * the ones a crash or a Redis outage left unsettled.
 */
export async function settleAdmission(deps: TradeLifecycleDeps, tradeId: string): Promise<void> {
  const trade = await deps.models.Trade.findById(tradeId, {
    admission: 1,
    admissionSettled: 1,
    status: 1,
    failureCategory: 1,
    finishedAt: 1,
    agentId: 1,
    venue: 1,
    marketId: 1,
    side: 1,
  }).lean();
  const release = trade && admissionToGiveBack(trade, deps.clock);
  if (!release) return;
  await releaseTrade(deps, release.admission, release.target, release.failedAt);
  await deps.models.Trade.updateOne({ _id: tradeId }, { $set: { admissionSettled: true } });
}
