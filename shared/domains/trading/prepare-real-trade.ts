import { randomUUID } from 'node:crypto';
import type { Deps } from '../../composition/deps.js';
import { VenueHttpError } from '../../infra/http/venue-http-error.js';
import { isServiceMarketId } from '../venues/external-ids.js';
import { venueKey } from '../markets/venue-key.js';
import type { PreparedTrade, TradeRequest } from './trade.schemas.js';

/**
 * The legacy `execute: true` call (`prepare_real_trade`, client-contract §4.4): the parameters of
 * a Polymarket buy of the YES side for `amount` at the current best ask, for the caller to sign and
 * place. Nothing is traded or recorded here, on any venue.
 */
export async function prepareRealTrade(deps: Deps, req: TradeRequest): Promise<PreparedTrade> {
  const refused = (error: string): PreparedTrade => ({
    success: false,
    market_id: req.market_id,
    platform: null,
    intent_id: null,
    error,
    order_params: null,
  });
  const market = isServiceMarketId(req.market_id)
    ? await deps.models.Market.findById(req.market_id).lean()
    : null;
  if (!market) return refused(`Market not found: ${req.market_id}`);
  if (market.importSource !== 'polymarket' || !market.venueRef?.externalId || !market.venueRef.yesTokenId)
    return refused(
      'This market is not a Polymarket market; execute: true prepares Polymarket orders only. Import the market first.',
    );
  if (req.side !== 'yes')
    return refused('execute: true prepares YES buys only; trade with venue "polymarket" for NO.');
  if (req.action !== 'buy') return refused('execute: true prepares buys only; sell with venue "polymarket".');
  let quote;
  try {
    quote = await deps.venues.get('polymarket').executableQuote(venueKey(market), {
      outcome: 'yes',
      action: 'buy',
      amount: req.amount,
    });
  } catch (err) {
    if (!(err instanceof VenueHttpError)) throw err;
    return refused(`The Polymarket order book is unavailable right now (${err.kind}); retry shortly.`);
  }
  if (!quote || quote.shares <= 0) return refused('No liquidity on the YES side of this market right now.');
  const price = quote.bestPrice;
  return {
    success: true,
    market_id: market._id,
    platform: 'polymarket',
    intent_id: randomUUID(),
    error: null,
    order_params: {
      token_id: market.venueRef.yesTokenId,
      price,
      size: Math.floor((req.amount / price) * 100) / 100,
      side: 'BUY',
      condition_id: market.venueRef.externalId,
      neg_risk: market.venueRef.negRisk === true,
    },
  };
}
