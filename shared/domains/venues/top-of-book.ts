import type { VenueQuote } from './venue-adapter.js';

/** Float dust from (bid + ask) / 2 and ask - bid removed; prices are on grids of ≥ 0.0001. */
export const round6 = (x: number) => Number(x.toFixed(6));

/**
 * A YES quote from the best bid and ask of any venue. YES price = midpoint when both sides quote;
 * with one side empty the last trade price stands in (a one-sided book has no midpoint) when it is
 * a real price strictly inside (0, 1); with neither, no quote (null).
 */
export function quoteFromTop(
  bestBid: number | null,
  bestAsk: number | null,
  lastTrade: number | null,
): VenueQuote | null {
  if (bestBid !== null && bestAsk !== null) {
    return { yesPrice: round6((bestBid + bestAsk) / 2), bestBid, bestAsk, spread: round6(bestAsk - bestBid) };
  }
  if (lastTrade !== null && lastTrade > 0 && lastTrade < 1)
    return { yesPrice: lastTrade, bestBid, bestAsk, spread: null };
  return null;
}
