import { readCandles } from '../../shared/domains/candles/read-candles.js';
import type { HandlersFor } from '../endpoints/endpoint.js';
import type { candleEndpoints } from '../endpoints/candles.endpoints.js';

/** An ISO instant without an offset is UTC (the Python client sends naive `datetime.isoformat()`). */
const utcInstant = (iso: string) => new Date(/(Z|[+-]\d{2}:?\d{2})$/i.test(iso) ? iso : `${iso}Z`);

export const candleHandlers: HandlersFor<typeof candleEndpoints> = {
  replayCandles: async ({ deps, query }) =>
    readCandles(deps.models.Candle, {
      symbol: query.symbol,
      interval: query.interval,
      start: utcInstant(query.start),
      end: utcInstant(query.end),
    }),
};
