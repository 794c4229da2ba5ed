import type { VenueRegistry } from '../venue-registry.js';
import { randomUUID } from 'node:crypto';
import { VenueHttpError } from '../../../infra/http/venue-http-error.js';
import type { MarketRecord } from '../../markets/market.model.js';
import { venueKey } from '../../markets/venue-key.js';
import { preparedRefusal } from '../../trading/prepare-real-trade.js';
import type { PreparedTrade, TradeRequest } from '../../trading/trade.schemas.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type PrepareOrderDeps = { venues: VenueRegistry };

/**
 * Polymarket's side of the legacy `execute: true` call: the parameters of a buy of the YES side for
 * `amount` at the current best ask. Null when the market has no CLOB tokens to order (not imported
 * from Polymarket as a tradeable market).
 */
export async function preparePolymarketOrder(
  deps: PrepareOrderDeps,
  market: MarketRecord,
  req: TradeRequest,
): Promise<PreparedTrade | null> {
  const refused = preparedRefusal(req);
  if (!market.venueRef?.externalId || !market.venueRef.yesTokenId) return null;
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
