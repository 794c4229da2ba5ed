import { createHash } from 'node:crypto';
import { seededRandom } from './ids.js';
import { clean, fmt, onGrid, type MarketRecord } from './model.js';

// CLOB order books are synthesised around the market price rather than stored: the YES book has
// a one-tick half-spread and several levels per side on the tick grid; the NO book is its mirror
// (NO bid = 1 - YES ask, same sizes), which is what the real neg-risk/CTF books converge to.

export interface Level {
  price: number;
  size: number;
}

export interface Book {
  /** Ascending: best bid is the LAST element (real CLOB ordering). */
  bids: Level[];
  /** Descending: best ask is the LAST element. */
  asks: Level[];
}

const LEVELS_PER_SIDE = 6;

/** Key of a YES-book level in `m.taken`. */
const levelKey = (side: 'bid' | 'ask', yesPrice: number) => `${side}:${fmt(yesPrice)}`;

/** What trades took out of this book version's levels (a price move brings fresh liquidity). */
function takenAt(m: MarketRecord, side: 'bid' | 'ask', yesPrice: number): number {
  return m.taken?.version === m.bookVersion ? (m.taken.sizes.get(levelKey(side, yesPrice)) ?? 0) : 0;
}

function yesBook(m: MarketRecord): Book {
  const t = m.tick;
  // Keep a bid and an ask strictly inside (0, 1) even when the price sits at the grid's edge.
  const center = onGrid(Math.min(Math.max(m.price, 2 * t), 1 - 2 * t), t);
  const rand = seededRandom(`book:${m.tokenIds[0]}:${m.bookVersion}`);
  const size = () => Math.round((25 + rand() * 1_800) * 100) / 100;
  const bids: Level[] = [];
  const asks: Level[] = [];
  for (let k = 0; k < LEVELS_PER_SIDE; k++) {
    const bid = onGrid(center - (k + 1) * t, t);
    const ask = onGrid(center + (k + 1) * t, t);
    // Sizes are drawn in the same sequence whatever fills took, so untouched levels keep theirs.
    if (bid >= t) {
      const left = clean(size() - takenAt(m, 'bid', bid));
      if (left > 0) bids.unshift({ price: bid, size: left });
    }
    if (ask <= 1 - t) {
      const left = clean(size() - takenAt(m, 'ask', ask));
      if (left > 0) asks.unshift({ price: ask, size: left });
    }
  }
  return { bids, asks };
}

/**
 * Takes `size` shares out of the synthetic level at `price` of book `index` (a fill against the
 * house). The NO book mirrors the YES book, so NO asks are YES bids at 1 − price and vice versa.
 */
export function takeLiquidity(
  m: MarketRecord,
  index: number,
  side: 'bids' | 'asks',
  price: number,
  size: number,
) {
  const yesSide: 'bid' | 'ask' = (side === 'bids') === (index === 0) ? 'bid' : 'ask';
  const yesPrice = index === 0 ? price : clean(1 - price);
  if (m.taken?.version !== m.bookVersion) m.taken = { version: m.bookVersion, sizes: new Map() };
  const k = levelKey(yesSide, yesPrice);
  m.taken.sizes.set(k, clean((m.taken.sizes.get(k) ?? 0) + size));
}

/** The book of outcome `index` (0 = Yes/first outcome, 1 = No/second, mirrored). */
export function bookOf(m: MarketRecord, index: number): Book {
  const yes = yesBook(m);
  if (index === 0) return yes;
  const flip = (l: Level): Level => ({ price: clean(1 - l.price), size: l.size });
  return {
    bids: yes.asks.map(flip).sort((a, b) => a.price - b.price),
    asks: yes.bids.map(flip).sort((a, b) => b.price - a.price),
  };
}

export const bestBid = (b: Book): number | undefined => b.bids.at(-1)?.price;
export const bestAsk = (b: Book): number | undefined => b.asks.at(-1)?.price;

export function midpoint(b: Book): number | undefined {
  const bid = bestBid(b);
  const ask = bestAsk(b);
  return bid === undefined || ask === undefined ? undefined : clean((bid + ask) / 2);
}

export function spread(b: Book): number | undefined {
  const bid = bestBid(b);
  const ask = bestAsk(b);
  return bid === undefined || ask === undefined ? undefined : clean(ask - bid);
}

export function lastTradeOf(m: MarketRecord, index: number): { price: number; side: string } {
  const p = index === 0 ? m.lastTrade.price : clean(1 - m.lastTrade.price);
  return { price: p, side: m.lastTrade.side };
}

/**
 * `GET /book` body. Field order matches the real response; `hash` is the SHA-1 (hex) of this
 * very JSON serialised with `hash: ""` (reference §3.1), so clients can verify it.
 */
export function bookWire(m: MarketRecord, index: number) {
  const b = bookOf(m, index);
  const levels = (ls: Level[]) => ls.map((l) => ({ price: fmt(l.price), size: fmt(l.size) }));
  const body = {
    market: m.conditionId,
    asset_id: m.tokenIds[index] as string,
    timestamp: String(m.bookUpdatedMs),
    hash: '',
    bids: levels(b.bids),
    asks: levels(b.asks),
    min_order_size: fmt(m.minSize),
    tick_size: fmt(m.tick),
    neg_risk: m.negRisk,
    last_trade_price: fmt(lastTradeOf(m, index).price),
  };
  body.hash = createHash('sha1').update(JSON.stringify(body)).digest('hex');
  return body;
}
