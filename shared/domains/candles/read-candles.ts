import { invalidField } from '../../infra/errors.js';
import { BINANCE_SOURCE } from './binance-klines.js';
import type { CandleModel } from './candle.model.js';
import { aggregateCandles } from './aggregate-candles.js';
import { RECORDED_INTERVAL, intervalMs, type CandleInterval, type CandleSymbol } from './candle-series.js';
import { earliestStoredOpen, latestStoredOpen } from './stored-range.js';

/** The longest window one request may ask for: 8 days of 1m candles is 11,520 rows. */
export const MAX_CANDLE_WINDOW_MS = 8 * 24 * 3_600_000;

export interface CandleQuery {
  symbol: CandleSymbol;
  interval: CandleInterval;
  start: Date;
  end: Date;
}

export interface CandleAnswer {
  symbol: CandleSymbol;
  interval: CandleInterval;
  start: string;
  end: string;
  served_through: string;
  complete: boolean;
  candles: {
    open_time: string;
    close_time: string;
    open: number;
    high: number;
    low: number;
    close: number;
    volume: number;
  }[];
  source: string;
  /** The recorded range of the series, [first open, last close): where `complete` comes from. */
  recorded_from: string | null;
  recorded_through: string | null;
}

/** 422 for a window the store will not serve: not a date, reversed, empty or longer than the cap. */
export function checkCandleWindow({ start, end }: Pick<CandleQuery, 'start' | 'end'>): void {
  for (const [field, date] of [
    ['start', start],
    ['end', end],
  ] as const)
    if (Number.isNaN(date.getTime()))
      throw invalidField(
        field,
        `${field} is not a calendar date`,
        null,
        'Send ISO 8601 timestamps of real dates, e.g. 2026-11-27T12:00:00Z.',
        'query',
      );
  if (end.getTime() <= start.getTime())
    throw invalidField(
      'end',
      'end must be after start',
      end.toISOString(),
      'Send an end later than start (ISO timestamps; UTC when no offset is given).',
      'query',
    );
  if (end.getTime() - start.getTime() > MAX_CANDLE_WINDOW_MS)
    throw invalidField(
      'end',
      'window too large (max 8 days per request)',
      end.toISOString(),
      'Ask for at most 8 days per request and page through longer spans with consecutive windows.',
      'query',
    );
}

/**
 * `GET /api/replay-data/candles`: the closed candles opening at or after `start` and closed by
 * `end` (close time = the candle's last millisecond, as Binance reports it), ascending. Served
 * from the recorded minutes; a longer interval is built from them (aggregateCandles).
 *
 * The recorder stores each series without gaps, so coverage is its two ends. `complete: false` tells
 * the client to fetch the rest from Binance itself, starting at `served_through`: when the record
 * stops short of `end`, `served_through` is the close of the last candle the record holds whole;
 * when it holds nothing of the window's beginning (the window predates recording), nothing is
 * served and `served_through` is `start`, so the client's own fetch covers the whole window instead
 * of leaving a hole at its head.
 */
export async function readCandles(Candle: CandleModel, q: CandleQuery): Promise<CandleAnswer> {
  checkCandleWindow(q);
  const step = intervalMs(q.interval);
  const startMs = q.start.getTime();
  const endMs = q.end.getTime();
  const firstOpen = Math.ceil(startMs / step) * step;
  // The close (exclusive) of the last whole candle inside the window.
  const lastWholeClose = Math.floor((endMs + 1) / step) * step;

  const [earliest, latest] = await Promise.all([
    earliestStoredOpen(Candle, q.symbol, RECORDED_INTERVAL),
    latestStoredOpen(Candle, q.symbol, RECORDED_INTERVAL),
  ]);
  const recordedThrough = latest === null ? null : latest + intervalMs(RECORDED_INTERVAL);
  const headMissing = earliest === null || earliest > firstOpen;
  // Candles are served whole: up to the last one every minute of which is recorded.
  const servedClose = headMissing
    ? firstOpen
    : Math.min(lastWholeClose, Math.floor(recordedThrough! / step) * step);

  const rows =
    servedClose <= firstOpen
      ? []
      : await Candle.find({
          symbol: q.symbol,
          interval: RECORDED_INTERVAL,
          openTime: { $gte: new Date(firstOpen), $lt: new Date(servedClose) },
        })
          .sort({ openTime: 1 })
          .lean();

  const complete = !headMissing && servedClose >= lastWholeClose;
  const servedThrough = complete ? endMs : Math.max(startMs, servedClose);
  return {
    symbol: q.symbol,
    interval: q.interval,
    start: q.start.toISOString(),
    end: q.end.toISOString(),
    served_through: new Date(servedThrough).toISOString(),
    complete,
    candles: aggregateCandles(rows, step).map((c) => ({
      open_time: new Date(c.openTime).toISOString(),
      close_time: new Date(c.openTime + step - 1).toISOString(),
      open: c.open,
      high: c.high,
      low: c.low,
      close: c.close,
      volume: c.volume,
    })),
    source: BINANCE_SOURCE,
    recorded_from: earliest === null ? null : new Date(earliest).toISOString(),
    recorded_through: recordedThrough === null ? null : new Date(recordedThrough).toISOString(),
  };
}
