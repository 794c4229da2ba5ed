import { VenueHttpError } from '../../infra/http/venue-http-error.js';
import { appendLedgerEntry } from '../ledger/ledger.js';
import {
  AGENT_DELTA_FIELDS,
  NO_AGENT_CHANGE,
  NO_POSITION_CHANGE,
  POSITION_AMOUNT_FIELDS,
  type AgentDelta,
  type PositionAmount,
} from '../ledger/ledger-entry.model.js';
import { NO_MARKET, answeredOrderIds, refusedResult, shapeOf } from './trade-result.js';
import { positionId } from '../positions/position.model.js';
import type { PositionRecord } from '../positions/position.model.js';
import { accept, type Refusal } from '../refusal.js';
import { emitTradeFailed } from '../webhooks/events.js';
import { tradeContext } from './context.js';
import { positionTarget } from './venue-order-state.js';
import {
  AWAITING_SETTLEMENT,
  confirmSettlement,
  confirmSettlementInPart,
  failSettlement,
  flagSettlementOverdue,
  noteSettlementLook,
  settleAdmission,
} from './trade-lifecycle.js';
import type { TradeRecord } from './trade.model.js';
import type { VenueId } from '../venues/venue-id.js';
import type { TradeResult } from './trade.schemas.js';
import type { Settlement, TradeExecutionContext, VenueTradingDeps } from './venue-trading.js';

/**
 * A venue match is not a trade until the chain settles it (Polymarket: MATCHED → MINED → CONFIRMED,
 * or FAILED). Every filled trade on such a venue carries `venueOrder.settlement: pending` from its
 * first booked match (venue-order-state.ts) and is answered `unconfirmed`; the `sync-venue-orders`
 * job asks the venue (VenueTrading `settlement`) until the chain's final word:
 * - confirmed: the trade's answer becomes `filled`;
 * - failed: the booking is rolled back by one ledger entry whose id is the trade's (so however often
 *   this runs, concurrently or after a crash, it is applied once), the agent is told (`trade.failed`,
 *   its id the trade's), then the trade is marked `failed` with its `failure_reason` under a guard on
 *   `settlement: pending`; a buy's daily-limit admission is given back.
 * Each step is idempotent and the trade stays `pending` until the last, so a run that stops half-way
 * is finished by the next.
 *
 * A match still not final SETTLEMENT_OVERDUE_MINUTES after it was booked is overdue: flagged once on
 * the trade (`settlementOverdueAt`, one error log line), counted in the `venue_settlements_overdue`
 * metric and listed for operators (overdueSettlements: GET /api/admin/settlements, the console's
 * Venues page); it is still followed, but less and less often (settlementNextLookAt).
 */

const SETTLEMENT_FAILED = 'settlement_failed';

/** The ledger entry that rolls back a trade's failed match: one per trade. */
export const reversalEntryId = (tradeId: string) => `${tradeId}-settlement-failed`;

/** Filled trades looked at per run; the ones looked at longest ago first. */
const FOLLOW_BATCH = 200;

export interface SettlementCounts {
  followed: number;
  confirmed: number;
  failed: number;
  errors: number;
}

/** An overdue match is asked about again after a quarter of its age: at least 1 minute, at most 1 hour. */
const MIN_OVERDUE_LOOK_MS = 60_000;
const MAX_OVERDUE_LOOK_MS = 3_600_000;
export const overdueLookDelayMs = (ageMs: number) =>
  Math.min(MAX_OVERDUE_LOOK_MS, Math.max(MIN_OVERDUE_LOOK_MS, Math.round(ageMs / 4)));

/** When the trade's matches were booked: the settlement's clock starts there. */
const bookedAt = (t: Pick<TradeRecord, 'finishedAt' | 'executedAt' | 'createdAt'>) =>
  t.finishedAt ?? t.executedAt ?? t.createdAt;

/** The filter of filled trades whose matches the chain has not settled yet. */
const UNSETTLED = AWAITING_SETTLEMENT;

/** Every filled trade whose matches the chain has not settled yet, asked once of its venue (overdue ones when due). */
export async function followSettlements(deps: VenueTradingDeps): Promise<SettlementCounts> {
  const ctx = tradeContext(deps);
  const venues = ctx.venues
    .all()
    .filter((v) => v.settlement)
    .map((v) => v.venue);
  const counts: SettlementCounts = { followed: 0, confirmed: 0, failed: 0, errors: 0 };
  if (!venues.length) return counts;
  const pending = await deps.models.Trade.find({
    venue: { $in: venues },
    ...UNSETTLED,
    // An overdue one waits for its next look (its backoff); every other one is asked each run.
    $or: [
      { 'venueOrder.settlementNextLookAt': null },
      { 'venueOrder.settlementNextLookAt': { $lte: ctx.now() } },
    ],
  })
    .sort({ 'venueOrder.syncedAt': 1 })
    .limit(FOLLOW_BATCH)
    .lean();
  for (const t of pending) {
    counts.followed++;
    try {
      const state = await followSettlement(deps, ctx, t);
      if (state === 'confirmed') counts.confirmed++;
      if (state === 'failed') counts.failed++;
    } catch (err) {
      counts.errors++;
      if (!(err instanceof VenueHttpError)) deps.log.warn({ err, tradeId: t._id }, 'settlement not followed');
    }
  }
  await countOverdue(deps, venues);
  return counts;
}

/** The metric of overdue settlements, per venue, as the database has them now. */
async function countOverdue(deps: VenueTradingDeps, venues: VenueId[]) {
  for (const venue of venues) {
    const overdue = await deps.models.Trade.countDocuments({
      venue,
      ...UNSETTLED,
      'venueOrder.settlementOverdueAt': { $ne: null },
    });
    deps.metrics.settlementsOverdue.set({ venue }, overdue);
  }
}

/** An overdue settlement as operators see it (GET /api/admin/settlements, the console's Venues page). */
export interface OverdueSettlement {
  trade_id: string;
  agent_id: string;
  venue: string;
  market_id: string;
  action: string;
  order_id: string | null;
  booked_at: string;
  overdue_since: string;
  last_looked_at: string | null;
  next_look_at: string | null;
}

/** Matches still not final on chain past SETTLEMENT_OVERDUE_MINUTES, oldest first. */
export async function overdueSettlements(
  deps: Pick<VenueTradingDeps, 'models' | 'env'>,
  limit = 200,
): Promise<{ overdue_after_minutes: number; overdue: OverdueSettlement[] }> {
  const trades = await deps.models.Trade.find({
    ...UNSETTLED,
    'venueOrder.settlementOverdueAt': { $ne: null },
  })
    .sort({ 'venueOrder.settlementOverdueAt': 1 })
    .limit(limit)
    .lean();
  const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);
  return {
    overdue_after_minutes: deps.env.SETTLEMENT_OVERDUE_MINUTES,
    overdue: trades.map((t) => ({
      trade_id: t._id,
      agent_id: t.agentId,
      venue: t.venue,
      market_id: t.marketId,
      action: t.action,
      order_id: t.venueOrder?.orderId ?? null,
      booked_at: bookedAt(t).toISOString(),
      overdue_since: t.venueOrder!.settlementOverdueAt!.toISOString(),
      last_looked_at: iso(t.venueOrder?.syncedAt),
      next_look_at: iso(t.venueOrder?.settlementNextLookAt),
    })),
  };
}

/**
 * A match the venue still calls pending: looked at now; once overdue, flagged (told once) and
 * asked about again only after its backoff.
 */
async function stillUnsettled(deps: VenueTradingDeps, ctx: TradeExecutionContext, t: TradeRecord) {
  const now = ctx.now();
  const ageMs = now.getTime() - bookedAt(t).getTime();
  if (ageMs < deps.env.SETTLEMENT_OVERDUE_MINUTES * 60_000) {
    await noteSettlementLook(ctx.models, t._id, now);
    return;
  }
  const nextLookAt = new Date(now.getTime() + overdueLookDelayMs(ageMs));
  // Flagged once: only the run that sets it tells the operator.
  if (await flagSettlementOverdue(ctx.models, t._id, now, nextLookAt)) {
    ctx.log.error(
      {
        tradeId: t._id,
        agentId: t.agentId,
        venue: t.venue,
        orderId: t.venueOrder?.orderId ?? null,
        bookedAt: bookedAt(t).toISOString(),
      },
      `a venue match is still not final on chain after ${deps.env.SETTLEMENT_OVERDUE_MINUTES} minutes: followed less often from now; see GET /api/admin/settlements`,
    );
    return;
  }
  await noteSettlementLook(ctx.models, t._id, now, nextLookAt);
}

/**
 * One look at a filled trade's settlement: the chain's word recorded, and a failed match rolled back.
 * The state the venue gave, or null when it could not say (the next run asks again).
 */
export async function followSettlement(
  deps: VenueTradingDeps,
  ctx: TradeExecutionContext,
  t: TradeRecord,
): Promise<Settlement['state'] | null> {
  const settlement = await ctx.venues.get(t.venue).settlement?.(ctx, t);
  if (!settlement) return null;
  if (settlement.state === 'pending') {
    await stillUnsettled(deps, ctx, t);
    return 'pending';
  }
  if (settlement.state === 'confirmed') {
    await confirmSettlement(ctx.models, t._id, ctx.now());
    return 'confirmed';
  }
  await rollBackFailedMatch(deps, ctx, t, settlement);
  return 'failed';
}

type FailedSettlement = Extract<Settlement, { state: 'failed' }>;

/** Rolls back what a failed match booked, tells the agent, and records the failure on the trade. */
async function rollBackFailedMatch(
  deps: VenueTradingDeps,
  ctx: TradeExecutionContext,
  t: TradeRecord,
  failed: FailedSettlement,
) {
  const matched = t.venueOrder!.matchedSharesMicro;
  const whole = failed.failedSharesMicro >= matched;
  // The share of the booking that failed: all of it (exactly what was booked), or in proportion.
  const part = whole ? 1 : failed.failedSharesMicro / matched;
  const reversed = await reverseBooking(ctx, t, part, whole);
  const fill = t.fill;
  const failedAmountMicro = fill ? (whole ? fill.amountMicro : Math.round(fill.amountMicro * part)) : 0;
  const failedShares = whole ? matched : failed.failedSharesMicro;
  const failedAt = ctx.now();
  // Told before the trade is marked (the event id is the trade's: a second run enqueues nothing), so
  // a run stopped between the two still tells it on the next.
  await emitTradeFailed(deps, t, {
    sharesMicro: failedShares,
    amountMicro: failedAmountMicro,
    whole,
    reason: failed.reason,
    failedAt,
  });
  if (whole) {
    const marked = await failSettlement(ctx.models, t._id, {
      errorCode: SETTLEMENT_FAILED,
      reason: failed.reason,
      result: await failedAnswer(ctx, t, failed.reason),
      now: failedAt,
    });
    if (marked && reversed.clamped)
      ctx.log.error(
        { tradeId: t._id, positionId: positionTarget(t).positionId },
        'a failed match rolled back only part of its shares: the position no longer held them',
      );
    // The buy's daily-limit count comes back, as for any buy that did not fill (the reconcile job
    // repeats it if this one is lost).
    await settleAdmission(deps, t._id);
    return;
  }
  await confirmSettlementInPart(ctx.models, t, {
    kept: {
      sharesMicro: (fill?.sharesMicro ?? matched) - failedShares,
      amountMicro: (fill?.amountMicro ?? 0) - failedAmountMicro,
    },
    reason: failed.reason,
    now: failedAt,
  });
}

/** The answer a trade whose whole match failed on chain replays: a failure with the venue's reason. */
async function failedAnswer(
  ctx: TradeExecutionContext,
  t: TradeRecord,
  reason: string,
): Promise<TradeResult> {
  const [market, position, agent] = await Promise.all([
    ctx.models.Market.findById(t.marketId).lean(),
    ctx.models.Position.findById(positionId(t.agentId, t.marketId, t.venue)).lean(),
    ctx.models.Agent.findById(t.agentId, { balanceMicro: 1 }).lean(),
  ]);
  const refusal: Refusal = {
    error: reason,
    errorCode: SETTLEMENT_FAILED,
    retryable: true,
    hint: 'Nothing was traded and no money moved: check the wallet (GET /api/sdk/portfolio) and send the trade again if you still want it.',
    category: 'venue',
  };
  const answer = refusedResult(
    shapeOf(t),
    market ?? NO_MARKET,
    refusal,
    {
      balanceMicro: agent?.balanceMicro ?? 0,
      sharesYesMicro: position?.sharesYesMicro ?? 0,
      sharesNoMicro: position?.sharesNoMicro ?? 0,
    },
    false,
  );
  const ids = answeredOrderIds(t._id, t.venueOrder?.orderId ?? null, t.venueOrder?.signer);
  return { ...answer, ...ids, order_status: 'matched' };
}

/**
 * One ledger entry taking back `part` of what the trade's matches booked (position shares, cost and
 * realised P&L; the trade counters too when the whole match failed). Shares the position no longer
 * holds (sold on meanwhile) are not taken below zero: `clamped` says so.
 */
async function reverseBooking(
  ctx: TradeExecutionContext,
  t: TradeRecord,
  part: number,
  whole: boolean,
): Promise<{ clamped: boolean }> {
  const booked = await ctx.models.LedgerEntry.find(
    { tradeId: t._id, kind: { $in: ['venue-buy', 'venue-sell'] } },
    { agent: 1, position: 1 },
  ).lean();
  const agent: Record<keyof AgentDelta, number> = { ...NO_AGENT_CHANGE };
  const position: Record<PositionAmount, number> = { ...NO_POSITION_CHANGE };
  for (const e of booked) {
    for (const f of AGENT_DELTA_FIELDS) agent[f] -= e.agent[f] ?? 0;
    for (const f of POSITION_AMOUNT_FIELDS) position[f] -= e.position?.[f] ?? 0;
  }
  const back = (v: number) => (whole ? v : Math.round(v * part));
  for (const f of POSITION_AMOUNT_FIELDS) position[f] = back(position[f]);
  let clamped = false;
  const target = positionTarget(t);
  await appendLedgerEntry(
    ctx.models,
    t.agentId,
    reversalEntryId(t._id),
    target,
    ({ position: held }) => {
      const delta = { ...position };
      clamped = clampToHeld(delta, held);
      return accept({
        kind: 'venue-reversal',
        tradeId: t._id,
        agent: whole ? agent : {},
        position: { ...delta, statusAfter: statusAfterReversal(held, delta) },
      });
    },
    ctx.now,
  );
  return { clamped };
}

/** Takes no side below zero shares; its cost goes in the same proportion. True when it had to. */
function clampToHeld(delta: Record<PositionAmount, number>, held: PositionRecord | null): boolean {
  let clamped = false;
  for (const side of ['Yes', 'No'] as const) {
    const [shares, cost] = [`shares${side}Micro`, `cost${side}Micro`] as const;
    const have = held?.[shares] ?? 0;
    if (delta[shares] >= 0 || have + delta[shares] >= 0) continue;
    delta[cost] = delta[shares] === 0 ? 0 : Math.round((delta[cost] * have) / -delta[shares]);
    delta[shares] = -have;
    clamped = true;
  }
  return clamped;
}

/** A position the reversal empties is closed; one it gives shares back to is open again. */
function statusAfterReversal(held: PositionRecord | null, delta: Record<PositionAmount, number>) {
  if (!held || held.status === 'settled') return null;
  const left = held.sharesYesMicro + delta.sharesYesMicro + held.sharesNoMicro + delta.sharesNoMicro;
  if (left === 0) return held.status === 'closed' ? null : ('closed' as const);
  return held.status === 'closed' ? ('open' as const) : null;
}
