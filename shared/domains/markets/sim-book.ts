import type { MarketRecord } from './market.model.js';
import { MICRO } from '../money.js';
import type { BookLevel, OutcomeBook } from '../venues/venue-adapter.js';
import { PRICE_CEIL, PRICE_FLOOR, rawPrice, sharesToMove, type LmsrState, type Outcome } from './lmsr.js';

/** Levels on each side of the synthetic sim book. */
export const SIM_BOOK_LEVELS = 5;
/** Shares trade in steps of 1e-5 (the API's 5 decimals), i.e. 10 micro-shares. */
export const SHARE_STEP_MICRO = 10;
/** The same step in shares: the smallest sim order. */
export const SIM_MIN_ORDER_SIZE = SHARE_STEP_MICRO / MICRO;

/** The LMSR state of a market's book: the anchor plus every applied fill. */
export function bookState(market: Pick<MarketRecord, 'book'>): LmsrState {
  const { b, q0Yes, q0No, yesMicro, noMicro } = market.book;
  return { b, qYes: q0Yes + yesMicro / MICRO, qNo: q0No + noMicro / MICRO };
}

const onTick = (p: number, tick: number) => Math.round(Math.round(p / tick) * tick * 1e6) / 1e6;
/** Whole share steps in `n` shares (rounded down), as an integer count. */
const steps = (n: number) => Math.floor(n / SIM_MIN_ORDER_SIZE + 1e-6);

/**
 * The sim book as the ladder an order book would show. An LMSR has no resting orders: it quotes
 * every size, at a price that moves with the size. This turns that curve into levels on the tick
 * grid: an ask at `price` of `size` means that buying `size` more shares (after the levels before
 * it) moves the marginal price of `side` up to `price`; a bid likewise for selling down to it. So
 * the cumulative size up to a level is exactly what a trade of that size would take from the book;
 * the average price paid inside a level lies between the previous level's price and its own.
 */
export function syntheticBook(
  state: LmsrState,
  side: Outcome,
  tickSize: number,
  levels = SIM_BOOK_LEVELS,
): Pick<OutcomeBook, 'bids' | 'asks'> {
  const p = rawPrice(state, side);
  // The tick at or just inside the current price; the first level is the next tick beyond it.
  const start = (direction: 1 | -1) =>
    (direction > 0 ? Math.floor(p / tickSize + 1e-9) : Math.ceil(p / tickSize - 1e-9)) * tickSize;
  const ladder = (direction: 1 | -1): BookLevel[] => {
    const out: BookLevel[] = [];
    let target = start(direction);
    let movedSteps = 0;
    while (out.length < levels) {
      target = onTick(target + direction * tickSize, tickSize);
      if (target > PRICE_CEIL || target < PRICE_FLOOR) break;
      const totalSteps = steps(Math.abs(sharesToMove(state, side, target)));
      const size = totalSteps - movedSteps;
      movedSteps = totalSteps;
      if (size > 0) out.push({ price: target, size: Math.round(size * SIM_MIN_ORDER_SIZE * 1e5) / 1e5 });
    }
    return out;
  };
  return { asks: ladder(1), bids: ladder(-1) };
}
