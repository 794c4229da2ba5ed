import type { AgentRecord } from '../../agents/agent.model.js';
import { appendLedgerEntry, type EntryDraft, type LedgerResult } from '../../ledger/ledger.js';
import type { MarketEventRecord } from '../../markets/market-event.model.js';
import { appendMarketEvent } from '../../markets/market-log.js';
import type { MarketRecord } from '../../markets/market.model.js';
import { positionId } from '../../positions/position.model.js';
import { accept, type Refusal } from '../../refusal.js';
import { finishWith, holdingsOf, refuseTrade } from '../../trading/execute-trade.js';
import type { TradeExecutionContext } from '../../trading/execution-context.js';
import { goLiveBlock } from '../../trading/go-live.js';
import type { TradeOutcome } from '../../trading/trade-lifecycle.js';
import type { TradeRecord } from '../../trading/trade.model.js';
import { filledResult, shapeOf, type Holdings } from '../../trading/trade-result.js';
import type { TradeResult } from '../../trading/trade.schemas.js';
import type { decideBuyFill } from './sim-decisions.js';
import { buyPlan, removedCost, sellPlan, type SimTradeSpec } from './sim-trade-plan.js';

/**
 * Executes a claimed sim trade one by one, exactly once however often it is run: every step is an
 * append to the agent's ledger or the market's log under an id derived from the trade id, so a step
 * that already happened is found, not repeated. Steps: reserve (cash or shares) → fill on the book →
 * settle the fill on the agent and position → record the outcome. A refusal after the reservation
 * releases it. The group commit (trade-batch.ts) writes the same records for many trades at once.
 */
export function executeSimTrade(
  ctx: TradeExecutionContext,
  t: TradeRecord,
  market: MarketRecord,
): Promise<TradeResult> {
  const run: TradeRun = {
    ctx,
    t,
    market,
    target: { marketId: t.marketId, venue: t.venue, positionId: positionId(t.agentId, t.marketId, t.venue) },
    refused: (refusal) => refuseTrade(ctx, t, market, refusal),
  };
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
  return finishWith(ctx, t, result, outcome);
}
