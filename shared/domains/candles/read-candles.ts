import { invalidField } from '../../infra/errors.js';
import type { CandleModel } from './candle.model.js';
import { intervalMs, type CandleInterval, type CandleSymbol } from './candle-series.js';
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

/** 422 for a window the store will not serve: reversed, empty or longer than the cap. */
export function checkCandleWindow({ start, end }: Pick<CandleQuery, 'start' | 'end'>): void {
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
 * `GET /api/replay-data/candles`: the recorded closed candles opening at or after `start` and closed
 * by `end` (close time = the candle's last millisecond, as Binance reports it), ascending.
 *
 * The recorder stores each series without gaps, so coverage is its two ends. `complete: false` tells
 * the client to fetch the rest from Binance itself, starting at `served_through`: when the store
 * stops short of `end`, `served_through` is where it stops; when it holds nothing of the window's
 * beginning (the window predates recording), nothing is served and `served_through` is `start`, so
 * the client's own fetch covers the whole window instead of leaving a hole at its head.
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
    earliestStoredOpen(Candle, q.symbol, q.interval),
    latestStoredOpen(Candle, q.symbol, q.interval),
  ]);
  const recordedThrough = latest === null ? null : latest + step;
  const headMissing = earliest === null || earliest > firstOpen;

  const docs = headMissing
    ? []
    : await Candle.find({
        symbol: q.symbol,
        interval: q.interval,
        openTime: { $gte: new Date(firstOpen), $lte: new Date(lastWholeClose - step) },
      })
        .sort({ openTime: 1 })
        .lean();

  const complete = !headMissing && recordedThrough! >= lastWholeClose;
  const servedThrough = complete
    ? endMs
    : headMissing
      ? startMs
      : Math.max(startMs, Math.min(endMs, recordedThrough!));
  return {
    symbol: q.symbol,
    interval: q.interval,
    start: q.start.toISOString(),
    end: q.end.toISOString(),
    served_through: new Date(servedThrough).toISOString(),
    complete,
    candles: docs.map((d) => ({
      open_time: d.openTime.toISOString(),
      close_time: new Date(d.openTime.getTime() + step - 1).toISOString(),
      open: d.open,
      high: d.high,
      low: d.low,
      close: d.close,
      volume: d.volume,
    })),
    source: 'binance',
    recorded_from: earliest === null ? null : new Date(earliest).toISOString(),
    recorded_through: recordedThrough === null ? null : new Date(recordedThrough).toISOString(),
  };
}
