import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import {
  duckDbErrorClass,
  isDuckDbOutage,
  sqlString,
  sqlStringList,
  withDuckDb,
} from '../../infra/duckdb.js';
import { columnList, MARKET_COLUMNS, PRINT_ID_COLUMN, QUANT_COLUMNS, SOURCE_COLUMN } from './tape-columns.js';
import { AppError } from '../../infra/errors.js';
import { tapeDirs, type TapeDirs } from './tape-store.js';

/** A cut refused for its size: the job's failure reason starts with this. */
export const SLICE_TOO_LARGE = 'slice_too_large';

/** What a tape is cut from: its window (Unix seconds, end excluded) and its filters. */
export interface SliceSpec {
  key: string;
  datasetRev: string;
  /** The window as the request named it (ISO text), echoed in the manifest. */
  t0: string;
  t1: string;
  startSec: number;
  endSec: number;
  maxMarkets: number;
  minVolume: number;
  /** Lower-cased substring of question or slug, or null. */
  q: string | null;
  /** The store files the revision was computed over: the slice reads exactly these. */
  marketFiles: string[];
  printFiles: string[];
  /** The most prints a slice may hold (TAPE_MAX_PRINTS). */
  maxPrints: number;
}

/** The manifest.json of a built slice; the answer of `POST /api/backtest/tape` is made from it. */
export interface TapeManifest {
  key: string;
  t0: string;
  t1: string;
  markets: number;
  quant_rows: number;
  dataset_rev: string;
  markets_matching_filter: number;
  max_markets_served: number;
  truncated: boolean;
  min_volume: number;
  q: string | null;
  sources: { source: string; markets: number; quant_rows: number }[];
  generated_at: string;
}

/** A slice bigger than TAPE_MAX_PRINTS: the worker refuses it before writing anything. */
export class SliceTooLarge extends Error {
  constructor(
    readonly prints: number,
    readonly limit: number,
  ) {
    super(`the slice would hold ${prints} prints, more than the limit of ${limit}`);
    this.name = 'SliceTooLarge';
  }
}

export const sliceDir = (dirs: TapeDirs, key: string) => join(dirs.slices, key);

/** The manifest of a slice already built, or null. */
export function builtSlice(dirs: TapeDirs, key: string): TapeManifest | null {
  const file = join(sliceDir(dirs, key), 'manifest.json');
  if (!existsSync(file)) return null;
  return JSON.parse(readFileSync(file, 'utf8')) as TapeManifest;
}

const MARKET_OUT = columnList({ ...MARKET_COLUMNS, source: 'VARCHAR' });
const QUANT_OUT = columnList({ ...QUANT_COLUMNS, source: 'VARCHAR' });

const count = async (db: DuckDBConnection, sql: string) =>
  Number((await db.runAndReadAll(sql)).getRows()[0]?.[0] ?? 0);

/**
 * Cuts one tape: the markets with prints in the window that match `q` and the volume floor, the
 * `maxMarkets` largest by volume, and their prints in the window; written as the two parquet files
 * and the manifest into a folder renamed into place whole. A slice of the same key built meanwhile
 * (another worker) wins: ours is dropped.
 */
export async function buildSlice(dirs: TapeDirs, spec: SliceSpec, now: Date): Promise<TapeManifest> {
  const existing = builtSlice(dirs, spec.key);
  if (existing) return existing;
  const building = join(dirs.slices, `.building-${spec.key}-${randomUUID().slice(0, 8)}`);
  mkdirSync(building, { recursive: true });
  try {
    const manifest = await withDuckDb((db) => cut(db, spec, building, now));
    writeFileSync(join(building, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    try {
      renameSync(building, sliceDir(dirs, spec.key));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw err;
      return builtSlice(dirs, spec.key) ?? manifest;
    }
    return manifest;
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
}

/** No rows, with the columns and types of `columns`: what a slice reads when the store has no file to read. */
const noRows = (columns: Record<string, string>) =>
  `(SELECT ${Object.entries(columns)
    .map(([name, type]) => `NULL::${type} AS ${name}`)
    .join(', ')} WHERE false)`;

/** The files of `files`, or no rows of the store's columns when there are none (a window without prints). */
const storeFiles = (files: string[], empty: Record<string, string>) =>
  files.length ? `read_parquet(${sqlStringList(files)}, union_by_name = true)` : noRows(empty);

async function cut(db: DuckDBConnection, spec: SliceSpec, out: string, now: Date): Promise<TapeManifest> {
  // The request's values are bound parameters: none of them is ever SQL text.
  // A print recorded twice (a recorder run retried after its write) is served once.
  await db.run(
    `CREATE TEMP TABLE prints AS
     SELECT * EXCLUDE (dup) FROM (
       SELECT *, row_number() OVER (PARTITION BY source, print_id ORDER BY timestamp) AS dup
       FROM ${storeFiles(spec.printFiles, { ...QUANT_COLUMNS, ...SOURCE_COLUMN, ...PRINT_ID_COLUMN })}
       WHERE timestamp >= CAST($start AS UBIGINT) AND timestamp < CAST($end AS UBIGINT)
     ) WHERE dup = 1`,
    { start: spec.startSec, end: spec.endSec },
  );
  // A market is re-recorded when it changes: its latest row is its state.
  await db.run(
    `CREATE TEMP TABLE markets AS
     SELECT * FROM ${storeFiles(spec.marketFiles, { ...MARKET_COLUMNS, ...SOURCE_COLUMN })}
     QUALIFY row_number() OVER (PARTITION BY source, id ORDER BY updated_at DESC NULLS LAST) = 1`,
  );
  await db.run(
    `CREATE TEMP TABLE matching AS
     SELECT m.* FROM markets m
     WHERE EXISTS (SELECT 1 FROM prints p WHERE p.source = m.source AND p.market_id = m.id)
       ${spec.q ? `AND (contains(lower(coalesce(m.question, '')), $q) OR contains(lower(coalesce(m.slug, '')), $q))` : ''}
       AND coalesce(m.volume, 0) >= CAST($minVolume AS DOUBLE)`,
    spec.q ? { q: spec.q, minVolume: spec.minVolume } : { minVolume: spec.minVolume },
  );
  await db.run(
    `CREATE TEMP TABLE served AS
     SELECT * FROM matching ORDER BY coalesce(volume, 0) DESC, id LIMIT CAST($maxMarkets AS BIGINT)`,
    { maxMarkets: spec.maxMarkets },
  );
  const servedPrints = `FROM prints p WHERE EXISTS (SELECT 1 FROM served s WHERE s.source = p.source AND s.id = p.market_id)`;
  const quantRows = await count(db, `SELECT count(*) ${servedPrints}`);
  if (quantRows > spec.maxPrints) throw new SliceTooLarge(quantRows, spec.maxPrints);
  await db.run(
    `COPY (SELECT ${MARKET_OUT} FROM served ORDER BY coalesce(volume, 0) DESC, id)
     TO ${sqlString(join(out, 'markets.parquet'))} (FORMAT parquet)`,
  );
  await db.run(
    `COPY (SELECT ${QUANT_OUT} ${servedPrints} ORDER BY timestamp, market_id, print_id)
     TO ${sqlString(join(out, 'quant.parquet'))} (FORMAT parquet)`,
  );
  const matching = await count(db, 'SELECT count(*) FROM matching');
  const served = await count(db, 'SELECT count(*) FROM served');
  const bySource = await db.runAndReadAll(
    `SELECT s.source, count(DISTINCT s.id) AS markets, count(p.market_id) AS quant_rows
     FROM served s LEFT JOIN prints p ON p.source = s.source AND p.market_id = s.id
     GROUP BY s.source ORDER BY s.source`,
  );
  return {
    key: spec.key,
    t0: spec.t0,
    t1: spec.t1,
    markets: served,
    quant_rows: quantRows,
    dataset_rev: spec.datasetRev,
    markets_matching_filter: matching,
    max_markets_served: spec.maxMarkets,
    truncated: matching > served,
    min_volume: spec.minVolume,
    q: spec.q,
    sources: bySource.getRows().map(([source, markets, rows]) => ({
      source: String(source),
      markets: Number(markets),
      quant_rows: Number(rows),
    })),
    generated_at: now.toISOString(),
  };
}

/**
 * A cut DuckDB refused for the statement or the store's data (not the engine or the disk of the
 * moment): asking again fails again. The job's failure reason starts with this.
 */
export const TAPE_CUT_FAILED = 'tape_cut_failed';

/** The `slice-tape` job: cuts the tape of a plan (its files relative to the store). */
export async function cutTape(
  env: { DATA_DIR: string; TAPE_MAX_PRINTS: number },
  plan: Omit<SliceSpec, 'maxPrints'>,
  now: Date,
): Promise<TapeManifest> {
  const dirs = tapeDirs(env.DATA_DIR);
  const abs = (files: string[]) => files.map((f) => resolve(dirs.store, f));
  try {
    return await buildSlice(
      dirs,
      {
        ...plan,
        marketFiles: abs(plan.marketFiles),
        printFiles: abs(plan.printFiles),
        maxPrints: env.TAPE_MAX_PRINTS,
      },
      now,
    );
  } catch (err) {
    // Not retried, and told apart by the API from a store failure by these prefixes.
    if (err instanceof SliceTooLarge)
      throw new AppError(422, SLICE_TOO_LARGE, `${SLICE_TOO_LARGE}: ${err.message}`, 'Narrow the tape.', {
        retryable: false,
      });
    if (duckDbErrorClass(err) && !isDuckDbOutage(err))
      throw new AppError(
        500,
        TAPE_CUT_FAILED,
        `${TAPE_CUT_FAILED}: ${(err as Error).message}`,
        'Report it to the operator.',
        { retryable: false, cause: err },
      );
    throw err;
  }
}
