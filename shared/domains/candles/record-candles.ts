import type { InfraDeps } from '../../infra/infra-deps.js';
import type { BinanceKlines, Kline } from './binance-klines.js';
import type { CandleModel } from './candle.model.js';
import {
  CANDLE_SYMBOLS,
  RECORDED_INTERVAL,
  intervalMs,
  type CandleInterval,
  type CandleSymbol,
} from './candle-series.js';
import { latestStoredOpen } from './stored-range.js';

/**
 * Pages one run may fetch per series (1000 candles each): a recorder that was down for days catches
 * up over a few runs instead of holding a worker for minutes.
 */
const MAX_PAGES_PER_RUN = 5;

export type CandleRecorderDeps = Pick<InfraDeps, 'clock' | 'env' | 'log'> & {
  models: { Candle: CandleModel };
  candles: BinanceKlines;
};

export interface SeriesRun {
  symbol: CandleSymbol;
  interval: CandleInterval;
  /** Candles new to the store. */
  stored: number;
  /** Open time of the newest stored candle after the run (ISO), or null while none is. */
  through: string | null;
}

/**
 * The `record-candles` job: for every recorded series, the closed candles since the newest stored
 * one (first run: the last CANDLE_BACKFILL_HOURS), written idempotently. Continuing from the newest
 * stored candle keeps the stored range gap-free, which is what lets the candles endpoint answer
 * `complete` from the range's two ends. A series that fails does not hold up the others; the job
 * then fails (and is retried) once they are done.
 */
export async function recordCandles(deps: CandleRecorderDeps): Promise<{ series: SeriesRun[] }> {
  const series: SeriesRun[] = [];
  const failures: string[] = [];
  for (const symbol of CANDLE_SYMBOLS) {
    try {
      series.push(await recordSeries(deps, symbol, RECORDED_INTERVAL));
    } catch (err) {
      deps.log.warn({ err, symbol }, 'candle recording failed for one series');
      failures.push(`${symbol}: ${(err as Error).message}`);
    }
  }
  if (failures.length) throw new Error(`candle recording failed for ${failures.join('; ')}`);
  return { series };
}

async function recordSeries(
  deps: CandleRecorderDeps,
  symbol: CandleSymbol,
  interval: CandleInterval,
): Promise<SeriesRun> {
  const step = intervalMs(interval);
  const now = deps.clock().getTime();
  const latest = await latestStoredOpen(deps.models.Candle, symbol, interval);
  let from =
    latest === null
      ? Math.floor((now - deps.env.CANDLE_BACKFILL_HOURS * 3_600_000) / step) * step
      : latest + step;
  let stored = 0;
  let through = latest;
  for (let page = 0; page < MAX_PAGES_PER_RUN; page++) {
    const { klines, lastPage } = await deps.candles.closedKlines(symbol, interval, from, now);
    if (klines.length === 0) break;
    stored += await storeCandles(deps.models.Candle, symbol, interval, deps.candles.source, klines);
    through = klines.at(-1)!.openTime;
    from = through + step;
    if (lastPage) break;
  }
  return { symbol, interval, stored, through: through === null ? null : new Date(through).toISOString() };
}

/** Inserts the candles not stored yet; a candle already there (a rerun, a second worker) is left as is. */
async function storeCandles(
  Candle: CandleModel,
  symbol: CandleSymbol,
  interval: CandleInterval,
  source: string,
  klines: Kline[],
): Promise<number> {
  const result = await Candle.bulkWrite(
    klines.map((k) => ({
      updateOne: {
        filter: { symbol, interval, openTime: new Date(k.openTime) },
        update: {
          $setOnInsert: {
            open: k.open,
            high: k.high,
            low: k.low,
            close: k.close,
            volume: k.volume,
            source,
          },
        },
        upsert: true,
      },
    })),
    { ordered: false },
  );
  return result.upsertedCount;
}
