import type { BookLevel, OutcomeBook, VenueQuote } from '../venue-adapter.js';
import type { ClobBook } from './clob.schemas.js';

/**
 * CLOB books → best-first books and quotes. The wire lists bids ascending and asks descending
 * (best last, reference §3.1), but third-party reports show unsorted books, so order is never
 * trusted: levels are sorted here and the best price is the max bid / min ask.
 */

/** Float dust from (bid + ask) / 2 and ask - bid removed; prices are on grids of ≥ 0.0001. */
const round6 = (x: number) => Number(x.toFixed(6));

function levels(wire: ClobBook['bids']): BookLevel[] {
  // Zero-size levels are cancelled orders some snapshots still list: nothing can fill there.
  return wire.filter((l) => l.size > 0).map((l) => ({ price: l.price, size: l.size }));
}

export function bookFromWire(b: ClobBook): OutcomeBook {
  return {
    bids: levels(b.bids).sort((x, y) => y.price - x.price),
    asks: levels(b.asks).sort((x, y) => x.price - y.price),
    tickSize: b.tick_size,
    minOrderSize: b.min_order_size,
  };
}

/**
 * Top of book of one token. YES price = midpoint when both sides quote; with one side empty the
 * last trade price stands in (a one-sided book has no midpoint); with neither, no quote (null).
 */
export function quoteFromBook(b: ClobBook): VenueQuote | null {
  const book = bookFromWire(b);
  const bestBid = book.bids[0]?.price ?? null;
  const bestAsk = book.asks[0]?.price ?? null;
  if (bestBid !== null && bestAsk !== null) {
    return { yesPrice: round6((bestBid + bestAsk) / 2), bestBid, bestAsk, spread: round6(bestAsk - bestBid) };
  }
  const last = b.last_trade_price;
  if (last !== null && last > 0 && last < 1) return { yesPrice: last, bestBid, bestAsk, spread: null };
  return null;
}
