import { z } from 'zod';
import { CANDLE_INTERVALS, CANDLE_SYMBOLS } from '../../shared/domains/candles/candle-series.js';
import { endpoint } from './endpoint.js';

const upper = (v: unknown) => (typeof v === 'string' ? v.toUpperCase() : v);
const symbols = CANDLE_SYMBOLS.join(', ');
const intervals = Object.keys(CANDLE_INTERVALS) as [
  keyof typeof CANDLE_INTERVALS,
  ...(keyof typeof CANDLE_INTERVALS)[],
];

/** An instant as the Python client sends it: ISO 8601, with an offset or without one (then UTC). */
const instant = (what: string) =>
  z.iso.datetime({ offset: true, local: true, error: `${what} must be an ISO 8601 timestamp` }).meta({
    description: `${what}: ISO 8601; UTC when no offset is given.`,
    example: '2026-11-27T12:00:00Z',
  });

const Candle = z
  .object({
    open_time: z.string().meta({ description: 'ISO; the candle opens here (inclusive).' }),
    close_time: z
      .string()
      .meta({ description: 'ISO; the candle’s last millisecond, as Binance reports it.' }),
    open: z.number(),
    high: z.number(),
    low: z.number(),
    close: z.number(),
    volume: z.number().meta({ description: 'Base-asset volume.' }),
  })
  .meta({ id: 'Candle' });

export const candleEndpoints = {
  replayCandles: endpoint({
    method: 'get',
    path: '/api/replay-data/candles',
    auth: 'agent',
    rateLimit: 'candles',
    tag: 'Replay data',
    summary: 'Recorded closed OHLCV candles (Binance spot) for a window, with how far the record covers it',
    description:
      `Candles opening at or after \`start\` and closed by \`end\`, ascending; never a candle still in progress. Recorded every minute for ${symbols} as 1m candles; 5m, 30m and 1h candles are built from them as Binance builds its own (open of the first minute, close of the last, extremes, summed volume). ` +
      '`complete: false` means the record stops short of `end` (or holds nothing of the window’s beginning): fetch the rest from Binance from `served_through` on, as the official client does. ' +
      'At most 8 days per request.',
    query: z.object({
      symbol: z.preprocess(
        upper,
        z.enum(CANDLE_SYMBOLS, { error: `symbol must be one of ${symbols} (the recorded series)` }),
      ),
      interval: z.enum(intervals, { error: `interval must be one of ${intervals.join(', ')}` }).default('1m'),
      start: instant('start'),
      end: instant('end'),
    }),
    response: z
      .object({
        symbol: z.enum(CANDLE_SYMBOLS),
        interval: z.enum(intervals),
        start: z.string(),
        end: z.string(),
        served_through: z.string().meta({
          description:
            'The window is served through here: `end` when complete, else where a client’s own fetch starts.',
        }),
        complete: z.boolean(),
        candles: z.array(Candle),
        source: z.string().meta({ description: '`binance`.' }),
        recorded_from: z.string().nullable().meta({ description: 'Open time of the first recorded candle.' }),
        recorded_through: z
          .string()
          .nullable()
          .meta({ description: 'Close (exclusive) of the last recorded candle.' }),
      })
      .meta({ id: 'Candles' }),
    errors: [429],
  }),
};
