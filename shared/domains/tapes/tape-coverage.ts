import { relative } from 'node:path';
import { sqlStringList, withDuckDb } from '../../infra/duckdb.js';
import type { InfraDeps } from '../../infra/infra-deps.js';
import { outage } from '../../infra/errors.js';
import type { Models } from '../models.js';
import { dayOf } from './tape-window.js';
import { listStoreFiles, revisionOf, storeSize, tapeDirs, type StoreFiles } from './tape-store.js';

export type TapeCoverageDeps = Pick<InfraDeps, 'env' | 'clock'> & { models: Pick<Models, 'TapeRecorder'> };

/** `GET /api/backtest/tape/coverage`, and the console's view of the store. */
export interface TapeCoverage {
  /** The first and last day a tape can cover (ISO dates). */
  coverage_t0: string | null;
  coverage_t1: string;
  /** The recorder ran lately: today is being recorded. */
  live: boolean;
  dataset_rev: string;
  prints: number;
  markets: number;
  sources: { source: string; first_day: string; last_day: string; prints: number; markets: number }[];
  files: number;
  bytes: number;
  recorder: { last_run_at: string | null; last_run: unknown };
}

/** The recorder is live when it ran this recently: today is then covered up to now. */
const LIVE_WITHIN_MS = 15 * 60_000;

/** Counted once per store revision (every file is immutable, so a revision's counts never change). */
const counted = new Map<string, Pick<TapeCoverage, 'prints' | 'markets' | 'sources'>>();

/** The store as read from its folders, or the 503 of a store that cannot be read. */
export function readStore(dataDir: string): StoreFiles {
  try {
    return listStoreFiles(tapeDirs(dataDir));
  } catch (err) {
    throw tapeStoreDown(err);
  }
}

export const tapeStoreDown = (cause: unknown) =>
  outage(
    'tape_store_unavailable',
    'The backtest tape store is unavailable right now',
    'Retry in a few seconds; if it persists, the operator should check DATA_DIR/tapes (disk space, permissions).',
    cause,
  );

/**
 * The days a tape can cover, from the folders alone (cheap: what a tape request checks). The window
 * is [t0, t1) with dates at midnight, so `coverage_t1` is the day after the last day with prints
 * (the official client's `--window 1d` replays the day before it): tomorrow while the recorder is
 * live, since today is being recorded.
 */
export function coverageDays(files: StoreFiles, recorderRanAt: Date | null, now: Date) {
  const days = files.prints.map((p) => p.day).sort();
  const live = Boolean(recorderRanAt && now.getTime() - recorderRanAt.getTime() < LIVE_WITHIN_MS);
  const nowSec = Math.floor(now.getTime() / 1000);
  const lastDay = [...(days.length ? [days.at(-1)!] : []), ...(live || !days.length ? [dayOf(nowSec)] : [])]
    .sort()
    .at(-1)!;
  return { coverage_t0: days[0] ?? null, coverage_t1: nextDay(lastDay), live };
}

const nextDay = (day: string) => dayOf(Date.parse(`${day}T00:00:00Z`) / 1000 + 86_400);

export async function tapeCoverage(deps: TapeCoverageDeps): Promise<TapeCoverage> {
  const dirs = tapeDirs(deps.env.DATA_DIR);
  const files = readStore(deps.env.DATA_DIR);
  const all = [...files.markets, ...files.prints.map((p) => p.file)].map((f) => relative(dirs.store, f));
  const rev = revisionOf(all);
  let counts = counted.get(rev);
  if (!counts) {
    counts = await countStore(files).catch((err: unknown) => {
      throw tapeStoreDown(err);
    });
    counted.clear();
    counted.set(rev, counts);
  }
  const recorder = await deps.models.TapeRecorder.findById('recorder', { lastRunAt: 1, lastRun: 1 }).lean();
  return {
    ...coverageDays(files, recorder?.lastRunAt ?? null, deps.clock()),
    dataset_rev: rev,
    ...counts,
    ...storeSize(files),
    recorder: {
      last_run_at: recorder?.lastRunAt?.toISOString() ?? null,
      last_run: recorder?.lastRun ?? null,
    },
  };
}

async function countStore(files: StoreFiles) {
  const printFiles = files.prints.map((p) => p.file);
  return withDuckDb(async (db) => {
    const sources = printFiles.length
      ? (
          await db.runAndReadAll(
            `SELECT source, strftime(to_timestamp(min(timestamp)::DOUBLE), '%Y-%m-%d'),
                    strftime(to_timestamp(max(timestamp)::DOUBLE), '%Y-%m-%d'), count(*), count(DISTINCT market_id)
             FROM read_parquet(${sqlStringList(printFiles)}, union_by_name = true) GROUP BY source ORDER BY source`,
          )
        ).getRows()
      : [];
    const markets = files.markets.length
      ? Number(
          (
            await db.runAndReadAll(
              `SELECT count(DISTINCT (source, id)) FROM read_parquet(${sqlStringList(files.markets)}, union_by_name = true)`,
            )
          ).getRows()[0]?.[0] ?? 0,
        )
      : 0;
    const bySource = sources.map(([source, first, last, prints, m]) => ({
      source: String(source),
      first_day: String(first),
      last_day: String(last),
      prints: Number(prints),
      markets: Number(m),
    }));
    return { prints: bySource.reduce((n, s) => n + s.prints, 0), markets, sources: bySource };
  });
}
