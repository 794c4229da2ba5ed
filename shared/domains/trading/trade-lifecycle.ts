import type { InfraDeps } from '../../infra/infra-deps.js';
import type { SettingsCache } from '../limits/settings-cache.js';
import type { TierCache } from '../users/tier-cache.js';
import { randomUUID } from 'node:crypto';
import { RetryLater } from '../../infra/queue/job-errors.js';
import { afterWrite } from '../../infra/faults.js';
import { admissionToGiveBack, releaseTrade } from '../limits/trade-guard.js';
import type { Models } from '../models.js';
import type { Refusal } from '../refusal.js';
import { insertTogether, type NewTrade } from './trade-inserts.js';
import { FINAL_TRADE_STATUSES, type SettlementState, type TradeRecord } from './trade.model.js';
import type { TradeResult } from './trade.schemas.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type TradeLifecycleDeps = Pick<InfraDeps, 'env' | 'redis' | 'queues' | 'invalidation' | 'clock'> & {
  models: Models;
  caches: SettingsCache & TierCache;
};

/**
 * Every write of a trade record, in one place. The API creates a trade `pending`; a worker claims it
 * (`executing`) and finishes it `filled` or `rejected` (`open` while a venue order works); a trade no
 * worker took is stopped (`failed`); the reconcile job resumes a lost `executing` one. On a real
 * venue the order's progress is recorded on the trade (its signed order, matched size, the venue's
 * word, the chain's settlement, which may still fail a `filled` trade). Each write carries its guard
 * in the filter (the status it leaves, the size or count it read), so a replayed or concurrent step
 * changes nothing: crash and stress tests rely on exactly these guards. Nothing else writes trades.
 */
type TradeModels = Pick<Models, 'Trade'>;

export type TradeFill = NonNullable<TradeRecord['fill']>;
/** `open`: a venue order still working (resting, delayed): the order sync finishes it later. */
export type TradeOutcome = { refusal: Refusal } | { fill: TradeFill; open?: boolean };

/**
 * A new trade, `pending` until a worker claims it; the insert is shared with the trades recorded
 * meanwhile (trade-inserts.ts). An id already recorded is refused (the database's duplicate key).
 */
export function recordPendingTrade(models: TradeModels, trade: Omit<NewTrade, 'status'>): Promise<void> {
  return insertTogether(
    models.Trade,
    (trades) => models.Trade.insertMany(trades, { ordered: false, throwOnValidationError: true }),
    { ...trade, status: 'pending' },
  );
}

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
  new RetryLater(
    'trade_outcome_not_recorded',
    `The outcome of trade ${tradeId} could not be recorded (it is ${status ?? 'missing'}, not executing)`,
    'The job tries again.',
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

/**
 * The order a service-signed trade sends, recorded before it is sent, once: true when this call
 * recorded it, false when an earlier run had (its order is the one to send).
 */
export async function recordSignedOrder(
  models: TradeModels,
  tradeId: string,
  order: { orderId: string; signed: unknown },
): Promise<boolean> {
  const recorded = await models.Trade.updateOne(
    { _id: tradeId, status: 'executing', 'venueOrder.orderId': null },
    { $set: { 'venueOrder.orderId': order.orderId, 'venueOrder.signed': order.signed } },
  );
  afterWrite(recorded.modifiedCount > 0);
  return recorded.modifiedCount > 0;
}

/** The id the venue gave the trade's order, recorded once (a repeat keeps the first). */
export async function recordVenueOrderId(models: TradeModels, tradeId: string, orderId: string) {
  await models.Trade.updateOne(
    { _id: tradeId, 'venueOrder.orderId': null },
    { $set: { 'venueOrder.orderId': orderId } },
  );
}

/**
 * The order's matches booked up to a new cumulative size, guarded by the size booked before (a
 * concurrent or repeated booking of the same size changes nothing).
 */
export async function recordMatchedSize(
  models: TradeModels,
  tradeId: string,
  bookedBefore: number,
  matched: { sharesMicro: number; amountMicro: number; settlement: SettlementState | null },
) {
  await models.Trade.updateOne(
    { _id: tradeId, 'venueOrder.matchedSharesMicro': bookedBefore },
    {
      $set: {
        'venueOrder.matchedSharesMicro': matched.sharesMicro,
        'venueOrder.matchedAmountMicro': matched.amountMicro,
        ...(matched.settlement ? { 'venueOrder.settlement': matched.settlement } : {}),
      },
    },
  );
}

/** The venue's last word on the trade's order (live, matched, canceled, …) and when it was asked. */
export async function recordVenueOrderStatus(
  models: TradeModels,
  tradeId: string,
  status: string,
  now: Date,
) {
  await models.Trade.updateOne(
    { _id: tradeId },
    { $set: { 'venueOrder.status': status, 'venueOrder.syncedAt': now } },
  );
}

/** Filled trades whose matches the chain has not settled yet: the guard of every settlement write. */
export const AWAITING_SETTLEMENT = { status: 'filled' as const, 'venueOrder.settlement': 'pending' as const };

const awaitingSettlement = (tradeId: string) => ({ _id: tradeId, ...AWAITING_SETTLEMENT });

/** A look at a match the chain has not settled yet; `nextLookAt`: an overdue one's next look. */
export async function noteSettlementLook(models: TradeModels, tradeId: string, now: Date, nextLookAt?: Date) {
  await models.Trade.updateOne(awaitingSettlement(tradeId), {
    $set: {
      'venueOrder.syncedAt': now,
      ...(nextLookAt ? { 'venueOrder.settlementNextLookAt': nextLookAt } : {}),
    },
  });
}

/**
 * The unsettled match flagged overdue (with its next look), once: true only for the call that
 * flagged it, so that one alone tells the operator.
 */
export async function flagSettlementOverdue(
  models: TradeModels,
  tradeId: string,
  now: Date,
  nextLookAt: Date,
): Promise<boolean> {
  const flagged = await models.Trade.updateOne(
    { ...awaitingSettlement(tradeId), 'venueOrder.settlementOverdueAt': null },
    {
      $set: {
        'venueOrder.syncedAt': now,
        'venueOrder.settlementNextLookAt': nextLookAt,
        'venueOrder.settlementOverdueAt': now,
      },
    },
  );
  return flagged.modifiedCount > 0;
}

/** The chain settled every match: the trade's answer becomes `filled`. */
export async function confirmSettlement(models: TradeModels, tradeId: string, now: Date) {
  await models.Trade.updateOne(awaitingSettlement(tradeId), {
    $set: {
      'venueOrder.settlement': 'confirmed',
      'venueOrder.syncedAt': now,
      'result.fill_status': 'filled',
    },
  });
}

/**
 * `filled` → `failed`: the chain reverted every match, nothing traded (`result`: the failure the
 * trade answers from now on). True when this call marked it.
 */
export async function failSettlement(
  models: TradeModels,
  tradeId: string,
  failure: { errorCode: string; reason: string; result: TradeResult; now: Date },
): Promise<boolean> {
  const marked = await models.Trade.updateOne(awaitingSettlement(tradeId), {
    $set: {
      status: 'failed',
      'venueOrder.settlement': 'failed',
      'venueOrder.syncedAt': failure.now,
      errorCode: failure.errorCode,
      failureCategory: 'venue',
      failureReason: failure.reason,
      fill: null,
      result: failure.result,
    },
  });
  return marked.modifiedCount > 0;
}

/**
 * The chain reverted part of the matches: the trade stays `filled` with what it kept (its fill and
 * answer, when it has them, cut to `kept`), settled, the failure's reason noted.
 */
export async function confirmSettlementInPart(
  models: TradeModels,
  t: Pick<TradeRecord, '_id' | 'action' | 'fill' | 'result'>,
  part: { kept: { sharesMicro: number; amountMicro: number }; reason: string; now: Date },
) {
  const result = t.result as TradeResult | null;
  const { kept } = part;
  await models.Trade.updateOne(awaitingSettlement(t._id), {
    $set: {
      'venueOrder.settlement': 'confirmed',
      'venueOrder.syncedAt': part.now,
      failureReason: part.reason,
      ...(t.fill ? { 'fill.sharesMicro': kept.sharesMicro, 'fill.amountMicro': kept.amountMicro } : {}),
      ...(result
        ? {
            'result.fill_status': 'filled',
            [t.action === 'buy' ? 'result.shares_bought' : 'result.shares_sold']: kept.sharesMicro / 1e6,
            'result.cost': kept.amountMicro / 1e6,
            'result.warnings': [...(result.warnings ?? []), part.reason],
          }
        : {}),
    },
  });
}
