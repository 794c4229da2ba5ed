import { sqlString, sqlStringList, withDuckDb } from '../../infra/duckdb.js';
import { listStoreFiles, revisionOf, tapeDirs } from '../tapes/tape-store.js';
import {
  depthPercentiles,
  favoritism,
  findDrops,
  type DropRule,
  type PastDrop,
  type PricePoint,
} from './drops.js';
import type { ShockDepthSource } from './shock-signal.model.js';

/** Prints read per history (the newest): bounds the work of one read whatever the store holds. */
const MAX_PRINTS = 2_000_000;

export interface DropHistoryQuery {
  dataDir: string;
  /** The tape source of the shocked market's venue: the venue's own prints, not our pool's. */
  source: string;
  /** The markets whose past drops are comparable (the venue's imported sports markets). */
  marketIds: string[];
  sinceMs: number;
  rule: DropRule;
}

/** One history per store revision and question: the store changes when the recorder writes (minutes). */
let cached: { key: string; drops: PastDrop[] } | null = null;

/**
 * The past drops of `marketIds` on the recorded tapes (the venue's prints since `sinceMs`), found by
 * the live detector's own rule, each with its depth. Read with DuckDB from the day files of the
 * window; kept while the store and the question stay the same.
 */
export async function pastDrops(q: DropHistoryQuery): Promise<PastDrop[]> {
  if (!q.marketIds.length) return [];
  const sinceDay = new Date(q.sinceMs).toISOString().slice(0, 10);
  const files = listStoreFiles(tapeDirs(q.dataDir))
    .prints.filter((p) => p.source === q.source && p.day >= sinceDay)
    .map((p) => p.file);
  if (!files.length) return [];
  const key = JSON.stringify([revisionOf(files), q.source, [...q.marketIds].sort(), q.sinceMs, q.rule]);
  if (cached?.key === key) return cached.drops;
  const rows = await withDuckDb(async (db) =>
    (
      await db.runAndReadAll(
        `SELECT market_id, timestamp, price FROM (
           SELECT market_id, timestamp, price, row_number() OVER (PARTITION BY print_id ORDER BY timestamp) AS dup
           FROM read_parquet(${sqlStringList(files)}, union_by_name = true)
           WHERE market_id IN (${q.marketIds.map(sqlString).join(', ')}) AND timestamp >= CAST($since AS UBIGINT)
             AND price > 0 AND price < 1
         ) WHERE dup = 1
         ORDER BY timestamp DESC LIMIT ${MAX_PRINTS}`,
        { since: Math.floor(q.sinceMs / 1000) },
      )
    ).getRows(),
  );
  const byMarket = new Map<string, PricePoint[]>();
  for (const [marketId, ts, price] of rows.reverse()) {
    const series = byMarket.get(String(marketId)) ?? [];
    series.push({ atMs: Number(ts) * 1000, yes: Number(price) });
    byMarket.set(String(marketId), series);
  }
  const drops = [...byMarket.values()].flatMap((series) => findDrops(series, q.rule));
  cached = { key, drops };
  return drops;
}

export interface DepthEstimate {
  depths: ReturnType<typeof depthPercentiles>;
  source: ShockDepthSource;
  count: number;
}

/**
 * The depth percentiles a shock at `prePrice` gets: of the past drops in its favoritism band when
 * there are at least `minHistory` (`tapes`), else of every past drop when there are that many
 * (`tapes_all_bands`), else the configured defaults (`default`).
 */
export function estimateDepths(
  drops: PastDrop[],
  prePrice: number,
  minHistory: number,
  defaults: DepthEstimate['depths'],
): DepthEstimate {
  const band = favoritism(prePrice);
  const inBand = drops.filter((d) => favoritism(d.prePrice) === band).map((d) => d.depthCents);
  if (inBand.length >= minHistory)
    return { depths: depthPercentiles(inBand), source: 'tapes', count: inBand.length };
  if (drops.length >= minHistory)
    return {
      depths: depthPercentiles(drops.map((d) => d.depthCents)),
      source: 'tapes_all_bands',
      count: drops.length,
    };
  return { depths: defaults, source: 'default', count: 0 };
}
