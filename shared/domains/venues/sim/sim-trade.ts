import type { AgentRecord } from '../../agents/agent.model.js';
import { rollForwardAgent } from '../../ledger/ledger.js';
import { rollForwardMarket } from '../../markets/market-log.js';
import type { MarketRecord } from '../../markets/market.model.js';
import { byExternalIds } from '../../markets/venue-ref.js';
import type { Models } from '../../models.js';
import { positionId } from '../../positions/position.model.js';
import type { Refusal } from '../../refusal.js';
import { CONDITION_ID, EXTERNAL_ID_LABEL, isServiceMarketId, KALSHI_TICKER } from '../external-ids.js';
import { buyPlan, holdingsAfter, removedCost, sellPlan } from './sim-trade-plan.js';
import { filledResult, NO_MARKET, refusedResult, type TradeShape } from '../../trading/trade-result.js';
import type { TradeResult } from '../../trading/trade.schemas.js';
import type { VenueTrade } from '../../trading/venue-trade.js';
import { recordAndRun } from '../../trading/record-and-run.js';

async function marketNotFound(models: Models, id: string): Promise<Refusal> {
  let hint = 'Markets are addressed by the service market_id (a UUID) from GET /api/sdk/markets.';
  const kind = CONDITION_ID.test(id) ? 'condition_id' : KALSHI_TICKER.test(id) ? 'ticker' : null;
  if (kind) {
    const imported = await models.Market.findOne(
      byExternalIds(kind === 'condition_id' ? 'polymarket' : 'kalshi', [id]),
      { _id: 1 },
    ).lean();
    hint = imported
      ? `That is an external ${kind === 'condition_id' ? 'condition id' : 'ticker'}; this market's service market_id is ${imported._id}.`
      : `That looks like an external ${EXTERNAL_ID_LABEL[kind]}, not a service market_id (UUID). Import the market first (POST /api/sdk/markets/import) and trade its returned market_id.`;
  }
  return {
    error: `Market not found: ${id}`,
    errorCode: 'market_not_found',
    retryable: false,
    hint,
    category: 'market',
  };
}

/** A dry run: the same decisions as a live trade, on the current state, with no side effect. */
async function dryRun(
  models: Models,
  agent: AgentRecord,
  market: MarketRecord,
  shape: TradeShape,
  limit: number | null,
  now: Date,
): Promise<TradeResult> {
  await Promise.all([rollForwardMarket(models, market._id), rollForwardAgent(models, agent._id)]);
  const [fresh, freshAgent, position] = await Promise.all([
    models.Market.findById(market._id).lean(),
    models.Agent.findById(agent._id).lean(),
    models.Position.findById(positionId(agent._id, market._id, 'sim')).lean(),
  ]);
  const m = fresh ?? market;
  const a = freshAgent ?? agent;
  const holdings = {
    balanceMicro: a.balanceMicro,
    sharesYesMicro: position?.sharesYesMicro ?? 0,
    sharesNoMicro: position?.sharesNoMicro ?? 0,
  };
  // The live trade's own steps (sim-trade-plan.ts) on the current state; holdings are their deltas summed.
  const spec = {
    id: shape.id,
    side: shape.side,
    amountMicro: shape.amountMicro,
    sharesMicro: shape.sharesMicro,
    limit,
    source: null,
  };
  if (shape.action === 'buy') {
    const plan = buyPlan(spec);
    const reserve = plan.reserve(a);
    if (!reserve.ok) return refusedResult(shape, m, reserve.refusal, holdings, true);
    const fill = plan.fill(m, now);
    if (!fill.ok) return refusedResult(shape, m, fill.refusal, holdings, true);
    const after = holdingsAfter(holdings, [reserve.value, plan.settle(fill.value)]);
    return filledResult(shape, m, fill.value, after, { dryRun: true });
  }
  const plan = sellPlan(spec, m.status === 'resolved');
  const reserve = plan.reserve(a, position);
  if (!reserve.ok) return refusedResult(shape, m, reserve.refusal, holdings, true);
  const fill = plan.fill(m, now);
  if (!fill.ok) return refusedResult(shape, m, fill.refusal, holdings, true);
  const settle = plan.settle(fill.value, removedCost(reserve.value, shape.side), null);
  const after = holdingsAfter(holdings, [reserve.value, settle]);
  return filledResult(shape, m, fill.value, after, { dryRun: true });
}

/**
 * A trade on the sim venue: checked against the market, then either quoted (dry run) or recorded as
 * pending, handed to the `trades` queue (execute-trade.ts runs it on the LMSR book) and waited for
 * until the deadline.
 */
export async function submitSimTrade({
  deps,
  agent,
  req,
  shape,
  holdings,
  admitted,
}: VenueTrade): Promise<TradeResult> {
  const { models } = deps;
  // The cached market settles existence and tradeability; an answer that shows its price and is
  // given here (a refusal, "submitted") reads it again, since the cached price may be seconds old.
  const market = isServiceMarketId(req.market_id)
    ? await deps.caches.markets.getOrLoad(req.market_id, () => models.Market.findById(req.market_id).lean())
    : null;
  const current = async () => (market && (await models.Market.findById(market._id).lean())) ?? market!;
  if (!market)
    return refusedResult(
      shape,
      NO_MARKET,
      await marketNotFound(models, req.market_id),
      holdings,
      req.dry_run,
    );
  if (!market.simTradeable || market.analyticsOnly) {
    const refusal: Refusal = {
      error: 'Market is not tradeable on sim (tracking market: real trading only).',
      errorCode: 'market_not_tradeable',
      retryable: false,
      hint: 'Pick a market with sim_tradeable: true.',
      category: 'market',
    };
    return refusedResult(shape, await current(), refusal, holdings, req.dry_run);
  }
  const limit = req.price ?? null;
  if (req.dry_run) return dryRun(models, agent, market, shape, limit, deps.clock());

  return recordAndRun({ deps, agent, req, shape, holdings, market, fresh: current, fields: {}, admitted });
}
