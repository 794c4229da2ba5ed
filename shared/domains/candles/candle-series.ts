/**
 * The candle series this service records and serves: the spot pairs the venues' crypto fast
 * markets settle on, recorded as one-minute candles (the interval the official client asks for by
 * default) and served at the longer intervals its skills read too, built from the minutes.
 */
export const CANDLE_SYMBOLS = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT'] as const;
export type CandleSymbol = (typeof CANDLE_SYMBOLS)[number];

export const CANDLE_INTERVALS = {
  '1m': 60_000,
  '5m': 300_000,
  '30m': 1_800_000,
  '1h': 3_600_000,
} as const;
export type CandleInterval = keyof typeof CANDLE_INTERVALS;

/** The interval the recorder stores; every served interval is a whole number of it. */
export const RECORDED_INTERVAL = '1m' satisfies CandleInterval;

export const intervalMs = (interval: CandleInterval): number => CANDLE_INTERVALS[interval];
