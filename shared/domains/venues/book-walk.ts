import type { ExecutableQuote, OutcomeBook } from './venue-adapter.js';

/**
 * Walks one outcome's book: a buy of `amount` USD takes the asks from the lowest, a sell of `shares`
 * takes the bids from the highest. With no size, the top level alone is quoted. Null on an empty
 * side, or with no book at all (the venue does not know the market).
 */
export function walkBook(
  book: OutcomeBook | null,
  action: 'buy' | 'sell',
  size: { amount?: number; shares?: number },
): ExecutableQuote | null {
  if (!book) return null;
  const levels = action === 'buy' ? book.asks : book.bids;
  if (!levels.length) return null;
  const best = levels[0]!.price;
  const want = action === 'buy' ? (size.amount ?? 0) : (size.shares ?? 0);
  if (want <= 0)
    return {
      bestPrice: best,
      avgPrice: best,
      worstPrice: best,
      shares: 0,
      amount: 0,
      filled: true,
      source: 'orderbook',
    };
  let shares = 0;
  let amount = 0;
  let worst = best;
  for (const level of levels) {
    const left = action === 'buy' ? want - amount : want - shares;
    if (left <= 1e-12) break;
    worst = level.price;
    const take = action === 'buy' ? Math.min(level.size, left / level.price) : Math.min(level.size, left);
    shares += take;
    amount += take * level.price;
  }
  const filled = action === 'buy' ? amount >= want - 1e-9 : shares >= want - 1e-9;
  return {
    bestPrice: best,
    avgPrice: shares > 0 ? amount / shares : best,
    worstPrice: worst,
    shares,
    amount,
    filled,
    source: 'orderbook',
  };
}
