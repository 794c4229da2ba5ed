import type { CandleRecord } from './candle.model.js';

export interface OhlcvCandle {
  openTime: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

/** Volumes are sums of 8-decimal numbers: rounded back to 8 decimals, as Binance writes them. */
const volume8 = (v: number) => Math.round(v * 1e8) / 1e8;

/**
 * Recorded candles (ascending) merged into candles of `stepMs`, the way Binance builds its longer
 * intervals: open of the first, close of the last, extremes of all, volumes summed.
 */
export function aggregateCandles(
  rows: Pick<CandleRecord, 'openTime' | 'open' | 'high' | 'low' | 'close' | 'volume'>[],
  stepMs: number,
): OhlcvCandle[] {
  const out: OhlcvCandle[] = [];
  for (const row of rows) {
    const openTime = Math.floor(row.openTime.getTime() / stepMs) * stepMs;
    const last = out.at(-1);
    if (last?.openTime === openTime) {
      last.high = Math.max(last.high, row.high);
      last.low = Math.min(last.low, row.low);
      last.close = row.close;
      last.volume = volume8(last.volume + row.volume);
    } else {
      out.push({
        openTime,
        open: row.open,
        high: row.high,
        low: row.low,
        close: row.close,
        volume: row.volume,
      });
    }
  }
  return out;
}
