import { z } from 'zod';
import type { VenueHttpClient } from '../../infra/http/venue-http-client.js';
import type { CandleInterval, CandleSymbol } from './candle-series.js';

/** The `source` of the candles this module reads, stored with each and named in every answer. */
export const BINANCE_SOURCE = 'binance';

/** Binance's page size ceiling for klines. */
export const KLINES_PAGE_LIMIT = 1000;

/**
 * Binance settles a minute's trades into its candle a moment after the minute ends; a candle is
 * taken as closed only this long after its close time, so a just-finished candle is never stored
 * with a last trade still missing.
 */
export const CLOSE_SETTLE_MS = 2_000;

const decimal = z
  .string()
  .regex(/^\d+(\.\d+)?$/)
  .transform(Number);
const epochMs = z.number().int().nonnegative();

/**
 * One row of `GET /api/v3/klines`: open time, open, high, low, close, volume, close time (the
 * candle's last millisecond), then quote volume, trade count, taker volumes and an unused field
 * we do not read. Prices and volumes come as decimal strings.
 */
const KlineRow = z
  .tuple([epochMs, decimal, decimal, decimal, decimal, decimal, epochMs], z.unknown())
  .transform(([openTime, open, high, low, close, volume, closeTime]) => ({
    openTime,
    closeTime,
    open,
    high,
    low,
    close,
    volume,
  }));
const KlinesAnswer = z.array(KlineRow);

export type Kline = z.output<typeof KlineRow>;

/**
 * The `binance` market-data source: Binance's public spot klines (no key), through the project's
 * HTTP client (timeouts, retries, circuit breaker, metrics under `binance`). Not a trading venue.
 */
export class BinanceKlines {
  constructor(private readonly http: VenueHttpClient) {}

  readonly source = BINANCE_SOURCE;

  health() {
    return this.http.health();
  }

  /**
   * One page of candles opening at or after `fromMs`, closed as of `nowMs`, ascending; `lastPage`
   * when Binance had no more to list. Binance lists the candle still in progress too (its close
   * time lies ahead): left out here, as is one that closed less than CLOSE_SETTLE_MS ago.
   */
  async closedKlines(
    symbol: CandleSymbol,
    interval: CandleInterval,
    fromMs: number,
    nowMs: number,
  ): Promise<{ klines: Kline[]; lastPage: boolean }> {
    const rows = await this.http.get('/api/v3/klines', {
      endpoint: 'klines',
      schema: KlinesAnswer,
      query: { symbol, interval, startTime: fromMs, limit: KLINES_PAGE_LIMIT },
    });
    const klines = rows
      .filter((k) => k.openTime >= fromMs && k.closeTime + CLOSE_SETTLE_MS <= nowMs)
      .sort((a, b) => a.openTime - b.openTime);
    return { klines, lastPage: rows.length < KLINES_PAGE_LIMIT };
  }
}
