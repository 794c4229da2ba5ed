import type { VenueTradingDeps } from './venue-trading.js';
import { isServiceMarketId } from '../venues/external-ids.js';
import type { PreparedTrade, TradeRequest } from './trade.schemas.js';

/** The legacy call's refusal of `req`: nothing prepared, and why. */
export const preparedRefusal =
  (req: TradeRequest) =>
  (error: string): PreparedTrade => ({
    success: false,
    market_id: req.market_id,
    platform: null,
    intent_id: null,
    error,
    order_params: null,
  });

/**
 * The legacy `execute: true` call (`prepare_real_trade`, client-contract §4.4): the parameters of
 * an order on the market's venue for the caller to sign and place, prepared by the venue
 * (`VenueTrading.prepareOrder`; Polymarket's is the only one). Nothing is traded or recorded here,
 * on any venue.
 */
export async function prepareRealTrade(deps: VenueTradingDeps, req: TradeRequest): Promise<PreparedTrade> {
  const refused = preparedRefusal(req);
  const market = isServiceMarketId(req.market_id)
    ? await deps.models.Market.findById(req.market_id).lean()
    : null;
  if (!market) return refused(`Market not found: ${req.market_id}`);
  const venue = deps.trading.all().find((v) => v.venue === market.importSource);
  const prepared = venue?.prepareOrder ? await venue.prepareOrder(deps, market, req) : null;
  return (
    prepared ??
    refused(
      'This market is not a Polymarket market; execute: true prepares Polymarket orders only. Import the market first.',
    )
  );
}
