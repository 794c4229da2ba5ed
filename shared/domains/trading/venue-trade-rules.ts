import { toMicro } from '../money.js';
import { SIM_MAX_TRADE } from '../venues/sim/lmsr.js';
import type { VenueId } from '../venues/venue-id.js';
import { tradeKalshiVenue } from './kalshi-trade.js';
import { submitPolymarketTrade } from './polymarket-trade.js';
import { submitSimTrade } from './sim-trade.js';
import type { TradeRequest, TradeResult } from './trade.schemas.js';
import type { VenueTrade } from './venue-trade.js';

/**
 * What differs between venues when a trade is submitted. `submitTrade` looks the venue up here and
 * branches on nothing else, so a venue's trading rules live in its one entry.
 */
export interface VenueTradeRules {
  /**
   * The largest buy on this venue in micro-$SIM: a rule of the venue, not an account limit, so dry
   * runs are held to it too. Null when the venue has none.
   */
  maxBuyMicro: number | null;
  /** Warnings a request gets on this venue (e.g. an order type the venue ignores). */
  warnings: (req: TradeRequest) => string[];
  /** Takes the trade from here: quotes a dry run, or records, runs and answers a live trade. */
  submit: (trade: VenueTrade) => Promise<TradeResult>;
}

export const VENUE_TRADE_RULES: Record<VenueId, VenueTradeRules> = {
  sim: {
    maxBuyMicro: toMicro(SIM_MAX_TRADE),
    warnings: (req) =>
      req.order_type === 'GTC' || req.order_type === 'GTD'
        ? [`order_type ${req.order_type} has no resting effect on sim: the book fills at once or refuses.`]
        : [],
    submit: submitSimTrade,
  },
  polymarket: {
    maxBuyMicro: null,
    warnings: () => [],
    submit: submitPolymarketTrade,
  },
  kalshi: {
    maxBuyMicro: null,
    warnings: () => [],
    submit: tradeKalshiVenue,
  },
};
