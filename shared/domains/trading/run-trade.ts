import { NeverRetry, RetryLater } from '../../infra/queue/job-errors.js';
import type { MarketRecord } from '../markets/market.model.js';
import { positionId } from '../positions/position.model.js';
import type { Refusal } from '../refusal.js';
import type { TradeExecutionContext } from './venue-trading.js';
import { claimTrade, finishTrade, type TradeOutcome } from './trade-lifecycle.js';
import { FINAL_TRADE_STATUSES, type TradeRecord } from './trade.model.js';
import { NO_MARKET, refusedResult, shapeOf } from './trade-result.js';
import type { TradeResult } from './trade.schemas.js';

/** The agent's cash and shares in the trade's market now (`balanceMicro` when already known). */
export async function holdingsOf(ctx: TradeExecutionContext, t: TradeRecord, balanceMicro?: number) {
  const position = await ctx.models.Position.findById(positionId(t.agentId, t.marketId, t.venue)).lean();
  const agent =
    balanceMicro === undefined
      ? await ctx.models.Agent.findById(t.agentId, { balanceMicro: 1 }).lean()
      : null;
  return {
    balanceMicro: balanceMicro ?? agent?.balanceMicro ?? 0,
    sharesYesMicro: position?.sharesYesMicro ?? 0,
    sharesNoMicro: position?.sharesNoMicro ?? 0,
  };
}

const notClaimed = (tradeId: string) =>
  new RetryLater(
    'trade_not_claimed',
    `Trade ${tradeId} is pending but could not be claimed`,
    'The job tries again.',
  );

/** The answer for a trade stopped before any worker ran it (marked `failed`, with no result). */
const notExecuted = async (ctx: TradeExecutionContext, t: TradeRecord): Promise<TradeResult> =>
  refusedResult(
    shapeOf(t),
    NO_MARKET,
    {
      error: t.failureReason ?? 'The trade was not executed.',
      errorCode: 'not_executed',
      retryable: true,
      hint: 'Nothing was executed; send the trade again.',
      category: 'internal',
    },
    await holdingsOf(ctx, t),
    false,
  );

/** Records the outcome once; a concurrent or earlier finish wins and is returned. */
export const finishWith = (
  ctx: TradeExecutionContext,
  t: TradeRecord,
  result: TradeResult,
  outcome: TradeOutcome,
) => finishTrade(ctx.models, t._id, result, outcome, ctx.now());

/** Records a refusal as the trade's outcome, with the agent's holdings as they are now. */
export const refuseTrade = async (
  ctx: TradeExecutionContext,
  t: TradeRecord,
  market: MarketRecord,
  refusal: Refusal,
) =>
  finishWith(ctx, t, refusedResult(shapeOf(t), market, refusal, await holdingsOf(ctx, t), false), {
    refusal,
  });

/**
 * Runs one recorded trade in the worker, on any venue: claims it (`pending` → `executing`), answers
 * one that already ended with its recorded answer, looks at the owner's kill switch and the agent's
 * automaton halt again on a first run, and hands the trade to its venue (TradingVenues), which runs it exactly once however often
 * it is called. The group commit (group-commit.ts) runs each trade it does not hand to a venue together this way.
 */
export async function runTrade(
  ctx: TradeExecutionContext,
  tradeId: string,
  /** The trade as the caller (a group commit) claimed it just now: a first run, not a resume. */
  claimed?: TradeRecord,
): Promise<TradeResult> {
  const { Trade, Market } = ctx.models;
  let trade = claimed ?? (await claimTrade(ctx.models, tradeId, ctx.now()));
  const firstRun = trade !== null;
  if (!trade) {
    trade = await Trade.findById(tradeId).lean();
    if (!trade)
      throw new NeverRetry(
        'trade_not_found',
        `Trade ${tradeId} not found`,
        'This job refers to a trade that does not exist.',
        { missing: true },
      );
    if (FINAL_TRADE_STATUSES.includes(trade.status))
      return (trade.result as TradeResult | null) ?? (await notExecuted(ctx, trade));
    // Still `pending` although the claim took nothing (the database answered from a state it
    // did not keep): running it unclaimed would move money on a trade that may yet be stopped as
    // "never ran", and record nothing of it. The job claims it on its next try.
    if (trade.status === 'pending') throw notClaimed(tradeId);
    // `executing`: a retry after a crash; the logs say which steps already happened.
  }
  const market = await Market.findById(trade.marketId).lean();
  if (!market)
    throw new NeverRetry(
      'market_not_found',
      `Market ${trade.marketId} not found`,
      'The trade refers to a market that does not exist.',
      { missing: true },
    );
  const t = trade;
  // The kill switch and the automaton's halt again, now that a worker takes the trade: one queued
  // before the pause or halt does not run after it. A resumed trade (already executing) began
  // before and runs to its end.
  const halt = firstRun ? await ctx.haltedBy(t) : null;
  if (halt) return refuseTrade(ctx, t, market, halt);
  return ctx.venues.get(t.venue).execute(ctx, t, market);
}
