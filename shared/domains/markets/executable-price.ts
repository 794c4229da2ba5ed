import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';
import type { VenueRegistry } from '../venues/venue-registry.js';
import { invalidField, notFound } from '../../infra/errors.js';
import { VenueHttpError } from '../../infra/http/venue-http-error.js';
import { venueKey } from './venue-key.js';
import { isPoolVenue, POOL_VENUE, type VenueId } from '../venues/venue-id.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type ExecutablePriceDeps = Pick<InfraDeps, 'clock'> & { models: Models; venues: VenueRegistry };

export interface ExecutablePriceQuery {
  side: 'yes' | 'no';
  action: 'buy' | 'sell';
  amount?: number;
  shares?: number;
  apply_buffer: boolean;
  venue?: VenueId;
}

/** Onto the tick grid without making the order worse than the level it must reach: buys up, sells down. */
const toTick = (p: number, tick: number, action: 'buy' | 'sell') => {
  const steps = p / tick;
  // A hair of tolerance: 0.57/0.01 is 56.99999… in floating point.
  return (action === 'buy' ? Math.ceil(steps - 1e-9) : Math.floor(steps + 1e-9)) * tick;
};

/**
 * `GET /api/sdk/markets/{id}/executable-price` (client-contract §5.3): the price an order of this
 * side and size executes at now. Imported markets quote their venue's book (buy → asks, sell →
 * bids, walked for the size); sim markets, or `venue=sim`, the LMSR's exact quote. `price` is the
 * worst level reached, one tick worse with `apply_buffer`, on the tick grid; a side without
 * liquidity answers `success: false` so the client falls back to the external price.
 */
export async function executablePrice(deps: ExecutablePriceDeps, marketId: string, q: ExecutablePriceQuery) {
  const market = await deps.models.Market.findById(marketId).lean();
  if (!market) throw notFound('Market', 'Use the service market_id (a UUID) from GET /api/sdk/markets.');
  const venue = q.venue ?? market.importSource;
  // A market trades on sim and on the venue it was imported from, nowhere else.
  if (!isPoolVenue(venue) && venue !== market.importSource)
    throw invalidField(
      'venue',
      `this market is not on ${venue}`,
      venue,
      `Send venue=${POOL_VENUE}${isPoolVenue(market.importSource) ? '' : ` or venue=${market.importSource}`}, or leave it out.`,
      'query',
    );
  const key = isPoolVenue(venue) ? { externalId: market._id } : venueKey(market);
  const base = { market_id: market._id, venue, side: q.side, action: q.action, tick_size: market.tickSize };
  let quote;
  try {
    quote = await deps.venues
      .get(venue)
      .executableQuote(key, { outcome: q.side, action: q.action, amount: q.amount, shares: q.shares });
  } catch (err) {
    if (!(err instanceof VenueHttpError)) throw err;
    return {
      ...base,
      success: false,
      price: null,
      error: `The ${venue} order book is unavailable right now (${err.kind})`,
    };
  }
  if (!quote)
    return {
      ...base,
      success: false,
      price: null,
      error: `No ${q.action === 'buy' ? 'asks' : 'bids'} on the ${q.side.toUpperCase()} side`,
    };
  const tick = market.tickSize;
  const buffered = q.apply_buffer ? quote.worstPrice + (q.action === 'buy' ? tick : -tick) : quote.worstPrice;
  const price = Math.min(1 - tick, Math.max(tick, toTick(buffered, tick, q.action)));
  return {
    ...base,
    success: true,
    price: Number(price.toFixed(6)),
    best_price: quote.bestPrice,
    avg_price: Number(quote.avgPrice.toFixed(6)),
    worst_price: quote.worstPrice,
    shares: Number(quote.shares.toFixed(5)),
    amount: Number(quote.amount.toFixed(2)),
    fully_fillable: quote.filled,
    buffer_applied: q.apply_buffer,
    source: quote.source,
    quoted_at: deps.clock().toISOString(),
  };
}
