import type { CandleModel } from './candle.model.js';
import type { CandleInterval, CandleSymbol } from './candle-series.js';

// The filter names exactly the unique index's fields (symbol, interval, openTime): MongoDB serves it
// from that index, and so does the development server, which uses an index only for such a filter.
const ANY_TIME = { $gte: new Date(0) };

async function storedEnd(
  Candle: CandleModel,
  symbol: CandleSymbol,
  interval: CandleInterval,
  order: 1 | -1,
): Promise<number | null> {
  const doc = await Candle.findOne({ symbol, interval, openTime: ANY_TIME })
    .sort({ openTime: order })
    .select({ openTime: 1, _id: 0 })
    .lean();
  return doc ? doc.openTime.getTime() : null;
}

/** Open time (epoch ms) of the newest stored candle of a series, or null when none is stored. */
export const latestStoredOpen = (Candle: CandleModel, symbol: CandleSymbol, interval: CandleInterval) =>
  storedEnd(Candle, symbol, interval, -1);

/** Open time (epoch ms) of the oldest stored candle of a series, or null when none is stored. */
export const earliestStoredOpen = (Candle: CandleModel, symbol: CandleSymbol, interval: CandleInterval) =>
  storedEnd(Candle, symbol, interval, 1);
