/**
 * The candle series this service records and serves: the spot pairs the venues' crypto fast
 * markets settle on, at one-minute candles (the interval the official client asks for by default).
 */
export const CANDLE_SYMBOLS = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT'] as const;
export type CandleSymbol = (typeof CANDLE_SYMBOLS)[number];

export const CANDLE_INTERVALS = { '1m': 60_000 } as const;
export type CandleInterval = keyof typeof CANDLE_INTERVALS;

export const intervalMs = (interval: CandleInterval): number => CANDLE_INTERVALS[interval];
