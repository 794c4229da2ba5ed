import type { BookLevel, OutcomeBook, VenueQuote } from '../venue-adapter.js';
import { quoteFromTop } from '../top-of-book.js';
import type { ClobBook } from './clob.schemas.js';

/**
 * CLOB books → best-first books and quotes. The wire lists bids ascending and asks descending
 * (best last, reference §3.1), but third-party reports show unsorted books, so order is never
 * trusted: levels are sorted here and the best price is the max bid / min ask.
 */

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

/** Top of book of one token (see quoteFromTop: midpoint, else the last trade, else none). */
export function quoteFromBook(b: ClobBook): VenueQuote | null {
  const book = bookFromWire(b);
  return quoteFromTop(book.bids[0]?.price ?? null, book.asks[0]?.price ?? null, b.last_trade_price);
}
