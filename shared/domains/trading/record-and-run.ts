import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';
import type { SettingsCache } from '../limits/settings-cache.js';
import type { TierCache } from '../users/tier-cache.js';
import { randomUUID } from 'node:crypto';
import type { AgentRecord } from '../agents/agent.model.js';
import type { Admission } from './trade.model.js';
import { guardedTrade, guardTrade, loadGuard, releaseTrade, type TradeGuard } from '../limits/trade-guard.js';
import type { MarketRecord } from '../markets/market.model.js';
import type { VenueId } from '../venues/venue-id.js';
import {
  IDEMPOTENCY_TTL_SECONDS,
  claimIdempotencyKey,
  duplicateInFlight,
  fingerprintOf,
  keyReused,
  rememberAnswer,
} from './idempotency.js';
import {
  recordPendingTrade,
  settleAdmission,
  stopNeverRunTrade,
  stopPendingTrade,
  tradeJobState,
} from './trade-lifecycle.js';
import { FINAL_TRADE_STATUSES } from './trade.model.js';
import { refusedResult, submittedResult, type Holdings, type TradeShape } from './trade-result.js';
import { noteSkillUsed } from '../skills/skills.js';
import type { TradeRequest, TradeResult } from './trade.schemas.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type RecordAndRunDeps = Pick<
  InfraDeps,
  'env' | 'log' | 'redis' | 'queues' | 'invalidation' | 'clock'
> & { models: Models; caches: SettingsCache & TierCache };

export interface RecordedTrade {
  deps: RecordAndRunDeps;
  agent: AgentRecord;
  req: TradeRequest;
  shape: TradeShape;
  holdings: Holdings;
  market: MarketRecord;
  /** The market read again, for an answer given here that shows its price. */
  fresh: () => Promise<MarketRecord>;
  /** What the venue stores on the trade besides the request (e.g. a signed order). */
  fields: Record<string, unknown>;
  /** The account's safeguards, when the venue already read them. */
  guard?: TradeGuard;
  /** The trade's id when the venue derives it (e.g. from a signed transaction); else a new one. */
  tradeId?: string;
  /** The buy's admission when the caller took it already (VenueTrade.admitted); else taken here. */
  admitted?: Admission | null;
}

/**
 * The trade recorded under an agent's idempotency key within the key's 24 hours, unless it was
 * stopped before it ran (the queue was down: the caller got a 503 and the key was freed for a resend).
 */
async function recordedUnderKey(deps: RecordAndRunDeps, agentId: string, key: string) {
  const since = deps.clock().getTime() - IDEMPOTENCY_TTL_SECONDS * 1000;
  const recorded = await deps.models.Trade.find(
    { agentId, idempotencyKey: key },
    {
      status: 1,
      result: 1,
      createdAt: 1,
      venue: 1,
      marketId: 1,
      side: 1,
      action: 1,
      amountMicro: 1,
      sharesMicro: 1,
      limitPrice: 1,
      orderType: 1,
    },
  )
    .sort({ createdAt: -1 })
    .lean();
  return (
    recorded.find((t) => t.createdAt.getTime() >= since && !(t.status === 'failed' && !t.result)) ?? null
  );
}

/** An API queues a trade right after recording it: one older than this without a job lost it. */
const QUEUED_WITHIN_MS = 60_000;

/**
 * Stops the key's earlier trade when it is pending and no job will run it, so that the resend places
 * the trade instead of being told "in flight" until the reconcile job stops it, 15 minutes on:
 * - its job failed for good (every attempt met an error: the trade never ran);
 * - it has no job, and `ownRequestGone` (the key was free: its request gave the key back, e.g. after
 *   the database applied the insert but its reply was lost) or it is old enough that its request
 *   queued it long ago (Redis lost the job).
 * A trade whose job is queued is left alone.
 */
async function stoppedAsNeverRun(
  deps: RecordAndRunDeps,
  earlier: { _id: string; status: string; createdAt: Date },
  ownRequestGone: boolean,
): Promise<boolean> {
  if (earlier.status !== 'pending') return false;
  const state = await tradeJobState(deps, earlier._id);
  const lost =
    state === 'missing' &&
    (ownRequestGone || earlier.createdAt.getTime() < deps.clock().getTime() - QUEUED_WITHIN_MS);
  if (state !== 'failed' && !lost) return false;
  return stopNeverRunTrade(deps, earlier._id, deps.clock());
}

/** An answer that will not change: anything but a venue match still settling on chain. */
const isSettled = (answer: TradeResult) => answer.fill_status !== 'unconfirmed';

/**
 * A live trade from acceptance to answer, the same on every venue: the idempotency key, the
 * account safeguards (refused before anything is recorded), the trade recorded `pending`, handed
 * to the `trades` queue and waited for until the deadline. Once recorded, the caller gets the
 * outcome or "submitted" with the trade id, never a retryable error that would place it twice.
 */
export async function recordAndRun({
  deps,
  agent,
  req,
  shape,
  holdings,
  market,
  fresh,
  fields,
  guard: known,
  tradeId: givenId,
  admitted,
}: RecordedTrade): Promise<TradeResult> {
  const { models } = deps;
  const { warnings } = shape;
  const limit = req.price ?? null;
  const guard = known ?? (await loadGuard(deps, agent));
  const guarded = guardedTrade(shape, shape.venue as VenueId);
  const tradeId = givenId ?? randomUUID();
  const orderType = req.order_type ?? (req.action === 'buy' ? 'FAK' : 'GTC');
  const fingerprint = fingerprintOf({
    venue: shape.venue,
    marketId: market._id,
    side: req.side,
    action: req.action,
    amountMicro: shape.amountMicro,
    sharesMicro: shape.sharesMicro,
    limitPrice: limit,
    orderType,
  });
  let idem = req.idempotency_key
    ? await claimIdempotencyKey<TradeResult>(
        deps.redis,
        deps.env.QUEUE_PREFIX,
        agent._id,
        req.idempotency_key,
        tradeId,
        fingerprint,
      )
    : null;
  if (idem?.state === 'replay') return idem.answer;
  /** The recorded answer of the key's trade, cached again for the next resend. */
  const replayRecorded = async (answer: TradeResult) => {
    // A match still settling is not cached: the next resend reads the record's answer again.
    if (!isSettled(answer)) return answer;
    await rememberAnswer(
      deps.redis,
      deps.env.QUEUE_PREFIX,
      agent._id,
      req.idempotency_key!,
      fingerprint,
      answer,
    );
    return answer;
  };
  if (idem?.state === 'in-flight') {
    const first = await models.Trade.findById(idem.tradeId, { status: 1, result: 1, createdAt: 1 }).lean();
    if (first && FINAL_TRADE_STATUSES.includes(first.status) && first.result)
      return replayRecorded(first.result as TradeResult);
    // Stopped before it ran (the queue was down; its caller got a 503), but Redis was down too and
    // the key kept pointing at it: the key is free, as it is once that claim expires. The same once
    // it is stopped here because no job will run it.
    const stoppedUnrun =
      (first?.status === 'failed' && !first.result) ||
      (first !== null && (await stoppedAsNeverRun(deps, first, false).catch(() => false)));
    const taken = stoppedUnrun ? await idem.takeOver() : null;
    if (!taken) throw duplicateInFlight();
    idem = taken;
  }
  if (idem?.state === 'first') {
    // Redis may have lost what the key answered (down when the first request finished, its claim
    // expired since): the trade recorded under the key is the durable word, so a resend never
    // places a second one.
    const earlier = await recordedUnderKey(deps, agent._id, req.idempotency_key!).catch(async (err) => {
      await idem.abandon();
      throw err;
    });
    if (earlier) {
      // Every part of the fingerprint is stored on the trade.
      const recordedFingerprint = fingerprintOf({
        ...earlier,
        limitPrice: earlier.limitPrice ?? null,
        orderType: earlier.orderType ?? null,
      });
      if (recordedFingerprint !== fingerprint) {
        await idem.abandon();
        throw keyReused(req.idempotency_key!);
      }
      if (FINAL_TRADE_STATUSES.includes(earlier.status) && earlier.result)
        return replayRecorded(earlier.result as TradeResult);
      if (!(await stoppedAsNeverRun(deps, earlier, true).catch(() => false))) {
        await idem.abandon();
        throw duplicateInFlight();
      }
      // Stopped: the key's trade never ran, so this request places it (below) as the first would have.
    }
  }
  // Refused before anything was recorded: the key is released, so it may be used again.
  let admission: Admission | null;
  try {
    const guarding = await guardTrade(deps, guard, agent._id, guarded, admitted);
    if ('refusal' in guarding) {
      await idem?.abandon();
      return refusedResult(shape, await fresh(), guarding.refusal, holdings, false);
    }
    admission = guarding.admission;
  } catch (err) {
    await idem?.abandon();
    throw err;
  }

  try {
    await recordPendingTrade(models, {
      _id: tradeId,
      agentId: agent._id,
      marketId: market._id,
      venue: shape.venue as VenueId,
      side: req.side,
      action: req.action,
      amountMicro: shape.amountMicro,
      sharesMicro: shape.sharesMicro,
      orderType,
      limitPrice: limit,
      reasoning: req.reasoning ?? null,
      source: req.source ?? null,
      skillSlug: req.skill_slug ?? null,
      signalData: req.signal_data ?? null,
      idempotencyKey: req.idempotency_key ?? null,
      warnings,
      ownerKey: guard.owner.key,
      admission,
      ...fields,
    });
  } catch (err) {
    // Not recorded: give the count back here (best effort: a failure errs on the safe side).
    if (admission)
      await releaseTrade(deps, admission, { agentId: agent._id, ...guarded }).catch((e: unknown) =>
        deps.log.warn({ err: e, tradeId }, 'could not give back a daily-limit count'),
      );
    await idem?.abandon();
    throw err;
  }
  if (req.skill_slug)
    // Advice only (the briefing's recommendations): a failure here never fails the recorded trade.
    await noteSkillUsed(models, agent, req.skill_slug).catch((err: unknown) =>
      deps.log.warn({ err, tradeId }, 'the skill of a trade was not added to its agent'),
    );
  // From here the trade is recorded. Unless it is stopped before any worker took it, the caller gets
  // its id ("submitted"), never a retryable error that would have it placed twice: the worker, or
  // the reconcile job, finishes it.
  const submitted = async () => {
    await idem
      ?.keepPointing()
      .catch((err: unknown) => deps.log.warn({ err, tradeId }, 'idempotency key not kept'));
    return submittedResult({ ...shape, id: tradeId }, await fresh().catch(() => market), holdings);
  };
  let outcome;
  try {
    outcome = await deps.queues.enqueueAndWait<TradeResult>(
      'execute-trade',
      { tradeId },
      deps.env.TRADE_WAIT_MS,
    );
  } catch (err) {
    // The caller is told "failed": the trade must never run later behind their back. If a worker
    // claimed it first (the job was added but the reply was lost), it runs.
    const stopped = await stopPendingTrade(
      models,
      tradeId,
      'The trade queue was unavailable; nothing was executed.',
      deps.clock(),
    ).catch(() => false);
    if (!stopped) return submitted();
    await settleAdmission(deps, tradeId).catch((e: unknown) =>
      deps.log.warn({ err: e, tradeId }, 'daily-limit count not given back yet (the reconcile job will)'),
    );
    await idem?.abandon().catch(() => undefined);
    throw err;
  }
  try {
    const answer =
      outcome.state === 'completed'
        ? outcome.result
        : await models.Trade.findById(tradeId, { status: 1, result: 1 })
            .lean()
            .then((stored) =>
              stored && FINAL_TRADE_STATUSES.includes(stored.status) && stored.result
                ? (stored.result as TradeResult)
                : null,
            );
    if (answer) {
      // A match the chain has yet to settle may still fail: a resend must read the trade's answer
      // as it stands then, so the key keeps pointing at the trade instead of caching this one.
      if (isSettled(answer)) await idem?.complete(answer);
      else
        await idem
          ?.keepPointing()
          .catch((err: unknown) => deps.log.warn({ err, tradeId }, 'idempotency key not kept'));
      return answer;
    }
  } catch (err) {
    deps.log.warn({ err, tradeId }, 'trade outcome not readable; answering submitted');
  }
  return submitted();
}
