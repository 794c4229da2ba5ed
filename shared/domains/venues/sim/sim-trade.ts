import { byExternalIds } from '../../markets/venue-ref.js';
import type { Models } from '../../models.js';
import type { Refusal } from '../../refusal.js';
import { CONDITION_ID, EXTERNAL_ID_LABEL, isServiceMarketId, KALSHI_TICKER } from '../external-ids.js';
import { quoteSimTrade } from './sim-engine.js';
import { NO_MARKET, refusedResult } from '../../trading/trade-result.js';
import type { TradeResult } from '../../trading/trade.schemas.js';
import type { VenueTrade } from '../../trading/venue-trading.js';
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

/**
 * A trade on the sim venue: checked against the market, then either quoted (dry run) or recorded as
 * pending, handed to the `trades` queue (the sim engine, sim-engine.ts, runs it on the LMSR book) and waited for
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
  if (req.dry_run) return quoteSimTrade(models, agent, market, shape, limit, deps.clock());

  return recordAndRun({ deps, agent, req, shape, holdings, market, fresh: current, fields: {}, admitted });
}
