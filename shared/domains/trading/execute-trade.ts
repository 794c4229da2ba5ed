import { AppError } from '../../infra/errors.js';
import { executeKalshiOrder } from './execute-kalshi-order.js';
import { executeVenueOrder } from './execute-venue-order.js';
import type { TradeExecutionContext } from './execution-context.js';
import { appendLedgerEntry, type EntryDraft, type LedgerResult } from '../ledger/ledger.js';
import type { MarketEventRecord } from '../markets/market-event.model.js';
import { appendMarketEvent } from '../markets/market-log.js';
import { TRADING_PAUSED } from '../limits/trade-guard.js';
import type { MarketRecord } from '../markets/market.model.js';
import { positionId } from '../positions/position.model.js';
import { accept, type Refusal } from '../refusal.js';
import { goLiveBlock } from './go-live.js';
import type { decideBuyFill } from '../venues/sim/sim-decisions.js';
import { buyPlan, removedCost, sellPlan, type SimTradeSpec } from '../venues/sim/sim-trade-plan.js';
import { claimTrade, finishTrade, type TradeOutcome } from './trade-lifecycle.js';
import { FINAL_TRADE_STATUSES, type TradeRecord } from './trade.model.js';
import { filledResult, NO_MARKET, refusedResult, shapeOf, type Holdings } from './trade-result.js';
import type { AgentRecord } from '../agents/agent.model.js';
import type { TradeResult } from './trade.schemas.js';

async function holdingsOf(ctx: TradeExecutionContext, t: TradeRecord, balanceMicro?: number) {
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
const finish = (ctx: TradeExecutionContext, t: TradeRecord, result: TradeResult, outcome: TradeOutcome) =>
  finishTrade(ctx.models, t._id, result, outcome, ctx.now());

/**
 * Executes a pending sim trade, exactly once however often it is run: every step is an append to the
 * agent's ledger or the market's log under an id derived from the trade id, so a step that already
 * happened is found, not repeated. Steps: reserve (cash or shares) → fill on the book → settle the
 * fill on the agent and position → record the outcome. A refusal after the reservation releases it.
 */
export async function executeTrade(
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
      throw new AppError(
        404,
        'trade_not_found',
        `Trade ${tradeId} not found`,
        'This job refers to a trade that does not exist.',
        { retryable: false },
      );
    if (FINAL_TRADE_STATUSES.includes(trade.status))
      return (trade.result as TradeResult | null) ?? (await notExecuted(ctx, trade));
    // `executing`: a retry after a crash; the logs say which steps already happened.
  }
  const market = await Market.findById(trade.marketId).lean();
  if (!market)
    throw new AppError(
      404,
      'market_not_found',
      `Market ${trade.marketId} not found`,
      'The trade refers to a market that does not exist.',
      { retryable: false },
    );
  const t = trade;
  const run: TradeRun = {
    ctx,
    t,
    market,
    target: { marketId: t.marketId, venue: t.venue, positionId: positionId(t.agentId, t.marketId, t.venue) },
    refused: async (refusal) =>
      finish(ctx, t, refusedResult(shapeOf(t), market, refusal, await holdingsOf(ctx, t), false), {
        refusal,
      }),
  };
  // The kill switch again, now that a worker takes the trade: one queued before the pause does not
  // run after it. A resumed trade (already executing) began before and runs to its end.
  if (firstRun && t.ownerKey && (await ctx.ownerPaused(t.ownerKey))) return run.refused(TRADING_PAUSED);
  if (t.venue === 'kalshi') return executeKalshiOrder(ctx, t, market);
  if (t.venue !== 'sim') return executeVenueOrder(ctx, t, market);
  return t.action === 'buy' ? executeBuy(run) : executeSell(run);
}

/** What both trade directions work with. */
interface TradeRun {
  ctx: TradeExecutionContext;
  t: TradeRecord;
  market: MarketRecord;
  /** The position this trade moves. */
  target: { marketId: string; venue: TradeRecord['venue']; positionId: string };
  /** Records a refusal as the trade's outcome. */
  refused: (refusal: Refusal) => Promise<TradeResult>;
}

/**
 * Fills on the market's book; when the book refuses (market resolved, limit not met, …) the
 * reservation made before is released and the refusal becomes the trade's outcome.
 */
async function fillOrRelease(
  run: TradeRun,
  decide: (market: MarketRecord) => ReturnType<typeof decideBuyFill>,
  release: EntryDraft,
  target: TradeRun['target'] | null,
): Promise<{ event: MarketEventRecord } | { result: TradeResult }> {
  const { ctx, t } = run;
  const fill = await appendMarketEvent(ctx.models, t.marketId, t._id, decide, ctx.now);
  if (!fill.refusal) return { event: fill.event };
  await appendLedgerEntry(ctx.models, t.agentId, `${t._id}-release`, target, () => accept(release), ctx.now);
  return { result: await run.refused(fill.refusal) };
}

export const planOf = (t: TradeRecord): SimTradeSpec => ({
  id: t._id,
  side: t.side,
  amountMicro: t.amountMicro,
  sharesMicro: t.sharesMicro,
  limit: t.limitPrice,
  source: t.source,
});

async function executeBuy(run: TradeRun): Promise<TradeResult> {
  const { ctx, t, market, target, refused } = run;
  const { models, now } = ctx;
  const plan = buyPlan(planOf(t));

  const reserve = await appendLedgerEntry(
    models,
    t.agentId,
    `${t._id}-reserve`,
    null,
    ({ agent }) => plan.reserve(agent),
    now,
  );
  if (reserve.refusal) return refused(reserve.refusal);

  const fill = await fillOrRelease(run, (m) => plan.fill(m, ctx.now()), plan.release(), null);
  if ('result' in fill) return fill.result;
  const ev = fill.event;
  const settled = await appendLedgerEntry(
    models,
    t.agentId,
    `${t._id}-fill`,
    target,
    () => accept(plan.settle(ev)),
    now,
  );
  // A buy's own debit is its reservation: report the balance right after it.
  return filled(ctx, t, market, ev, settled, reserve.entry.balanceAfterMicro);
}

async function executeSell(run: TradeRun): Promise<TradeResult> {
  const { ctx, t, market, target, refused } = run;
  const { models, now } = ctx;
  const plan = sellPlan(planOf(t), market.status === 'resolved');

  const reserve = await appendLedgerEntry(
    models,
    t.agentId,
    `${t._id}-reserve`,
    target,
    ({ agent, position }) => plan.reserve(agent, position),
    now,
  );
  if (reserve.refusal) return refused(reserve.refusal);
  const costOff = removedCost(reserve.entry as EntryDraft, t.side);

  const fill = await fillOrRelease(run, (m) => plan.fill(m, ctx.now()), plan.release(costOff), target);
  if ('result' in fill) return fill.result;
  const ev = fill.event;
  const settled = await appendLedgerEntry(
    models,
    t.agentId,
    `${t._id}-fill`,
    target,
    ({ position }) => accept(plan.settle(ev, costOff, position)),
    now,
  );
  return filled(ctx, t, market, ev, settled, settled.entry!.balanceAfterMicro);
}

/**
 * The answer and recorded outcome of a fill: `holdings` right after it, `agent` as the settle entry
 * saw it (for the go-live nudge), `simTradesAfter` the agent's sim-trade count after it.
 */
export function fillAnswer(
  ctx: Pick<TradeExecutionContext, 'baseUrl' | 'claimUrlFor'>,
  t: TradeRecord,
  market: MarketRecord,
  ev: MarketEventRecord,
  holdings: Holdings,
  simTradesAfter: number,
  agent: Pick<AgentRecord, 'realTradesCount' | 'claimedBy' | 'claimCode'> | null,
): { result: TradeResult; outcome: TradeOutcome } {
  const claimUrl = agent && !agent.claimedBy ? ctx.claimUrlFor(agent.claimCode) : null;
  const goLive = goLiveBlock(simTradesAfter, agent?.realTradesCount ?? 0, ctx.baseUrl, claimUrl);
  return {
    result: filledResult(shapeOf(t), market, ev, holdings, { dryRun: false, goLive }),
    outcome: {
      fill: {
        sharesMicro: ev.sharesMicro,
        amountMicro: ev.amountMicro,
        priceBefore: ev.priceBefore ?? 0,
        priceAfter: ev.priceAfter ?? 0,
        balanceAfterMicro: holdings.balanceMicro,
      },
    },
  };
}

/** Records a fill; `balanceAfterMicro` is the balance right after this trade's own cash movement. */
async function filled(
  ctx: TradeExecutionContext,
  t: TradeRecord,
  market: MarketRecord,
  ev: MarketEventRecord,
  settled: LedgerResult,
  balanceAfterMicro: number,
) {
  const entry = settled.entry!;
  // The settle entry was decided on the agent and position as of the entry before it: the answer
  // reads them from there (position = before + this entry's delta), and only a replay reads again.
  const before = settled.before;
  const agent =
    before?.agent ??
    (await ctx.models.Agent.findById(t.agentId, { realTradesCount: 1, claimedBy: 1, claimCode: 1 }).lean());
  const holdings = before
    ? {
        balanceMicro: balanceAfterMicro,
        sharesYesMicro: (before.position?.sharesYesMicro ?? 0) + (entry.position?.sharesYesMicro ?? 0),
        sharesNoMicro: (before.position?.sharesNoMicro ?? 0) + (entry.position?.sharesNoMicro ?? 0),
      }
    : await holdingsOf(ctx, t, balanceAfterMicro);
  const { result, outcome } = fillAnswer(ctx, t, market, ev, holdings, entry.simTradesAfter, agent);
  return finish(ctx, t, result, outcome);
}
