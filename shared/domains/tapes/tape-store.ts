import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { sqlString, withDuckDb } from '../../infra/duckdb.js';
import {
  castList,
  columnsLiteral,
  MARKET_COLUMNS,
  PRINT_ID_COLUMN,
  QUANT_COLUMNS,
  SOURCE_COLUMN,
  type TapeMarketRow,
  type TapePrintRow,
} from './tape-columns.js';

/**
 * The tape store: parquet files under DATA_DIR/tapes, written once and never changed.
 *
 *   store/<source>/markets/<batch>.parquet        market rows (the latest row of a market wins)
 *   store/<source>/prints/<yyyy-mm-dd>/<batch>.parquet   prints of one UTC day
 *   slices/<key>/{markets,quant}.parquet, manifest.json  built tapes, served by signed URLs
 *
 * Why files and not a DuckDB database: a database file takes a write lock, and the API, the workers
 * and an operator's `npm run tape:import` all write or read the store at once (and in compose, from
 * separate containers sharing a volume). Immutable files need no lock: a batch is written under
 * staging/ and renamed into place, so a reader sees it whole or not at all. Day folders let a slice
 * read only the days of its window.
 */
export interface TapeDirs {
  root: string;
  store: string;
  slices: string;
  staging: string;
  /** Parquet pairs an operator uploaded to import (`npm run tape:import -- --base-url`). */
  uploads: string;
}

export function tapeDirs(dataDir: string): TapeDirs {
  const root = join(dataDir, 'tapes');
  return {
    root,
    store: join(root, 'store'),
    slices: join(root, 'slices'),
    staging: join(root, 'staging'),
    uploads: join(root, 'uploads'),
  };
}

/** A source's name is a folder name: lower-case letters, digits and dashes. */
export const SOURCE_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;

export interface StoreFiles {
  /** Every market file of every source. */
  markets: string[];
  /** Print files by UTC day. */
  prints: { day: string; file: string; source: string }[];
}

const listDir = (dir: string) => {
  try {
    return readdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
};

/** A folder's list of files a merge replaced (compact-store.ts): no longer part of the store. */
const SUPERSEDED = '.superseded.json';

function supersededIn(dir: string): Set<string> {
  try {
    return new Set(JSON.parse(readFileSync(join(dir, SUPERSEDED), 'utf8')) as string[]);
  } catch {
    return new Set();
  }
}

const parquetIn = (dir: string) => {
  const gone = supersededIn(dir);
  return listDir(dir)
    .filter((f) => f.endsWith('.parquet') && !gone.has(f))
    .sort()
    .map((f) => join(dir, f));
};

/** Lists `names` of `dir` as superseded (written whole, then renamed: readers see the old list or the new). */
export function supersede(dir: string, names: string[]): void {
  const all = [...new Set([...supersededIn(dir), ...names])];
  const tmp = join(dir, `${SUPERSEDED}.${randomUUID().slice(0, 8)}`);
  writeFileSync(tmp, JSON.stringify(all));
  renameSync(tmp, join(dir, SUPERSEDED));
}

/** Deletes superseded files once their list is older than `keptMs`, and the list with them. */
export function removeSuperseded(dirs: TapeDirs, keptMs: number, now: Date): void {
  for (const source of listDir(dirs.store)) {
    const folders = [
      join(dirs.store, source, 'markets'),
      ...listDir(join(dirs.store, source, 'prints')).map((d) => join(dirs.store, source, 'prints', d)),
    ];
    for (const dir of folders) {
      const list = join(dir, SUPERSEDED);
      try {
        if (now.getTime() - statSync(list).mtimeMs < keptMs) continue;
      } catch {
        continue; // no list
      }
      for (const name of supersededIn(dir)) rmSync(join(dir, name), { force: true });
      rmSync(list, { force: true });
    }
  }
}

/** Every file of the store, read from the folders (the folders are the catalogue). */
export function listStoreFiles(dirs: TapeDirs): StoreFiles {
  const files: StoreFiles = { markets: [], prints: [] };
  for (const source of listDir(dirs.store).sort()) {
    if (!SOURCE_NAME.test(source)) continue;
    files.markets.push(...parquetIn(join(dirs.store, source, 'markets')));
    for (const day of listDir(join(dirs.store, source, 'prints')).sort())
      for (const file of parquetIn(join(dirs.store, source, 'prints', day)))
        files.prints.push({ day, file, source });
  }
  return files;
}

/** The store's bytes and file count, for the console. */
export function storeSize(files: StoreFiles): { files: number; bytes: number } {
  const all = [...files.markets, ...files.prints.map((p) => p.file)];
  let bytes = 0;
  for (const f of all) {
    try {
      bytes += statSync(f).size;
    } catch {
      // removed since the listing (compaction): not counted
    }
  }
  return { files: all.length, bytes };
}

/**
 * A revision of what a slice reads: the names of its files (which never change once written). The
 * same window over the same files gives the same revision, so the client's cache keeps working for
 * past windows while new prints land elsewhere.
 */
export function revisionOf(files: readonly string[]): string {
  const h = createHash('sha256');
  for (const f of [...files].sort()) h.update(f).update('\n');
  return h.digest('hex').slice(0, 16);
}

export const batchName = () =>
  `${Date.now().toString(36).padStart(9, '0')}-${randomUUID().slice(0, 8)}.parquet`;

/** A fresh folder under staging/ for one write, removed afterwards. */
function stagingDir(dirs: TapeDirs): string {
  const dir = join(dirs.staging, randomUUID());
  mkdirSync(dir, { recursive: true });
  return dir;
}

const STORE_MARKET_COLUMNS = { ...MARKET_COLUMNS, ...SOURCE_COLUMN };
const STORE_PRINT_COLUMNS = { ...QUANT_COLUMNS, ...SOURCE_COLUMN, ...PRINT_ID_COLUMN };

/**
 * Writes market rows of one source as one new file. Rows go through newline-delimited JSON, which
 * DuckDB reads with the declared column types.
 */
export async function appendMarkets(dirs: TapeDirs, source: string, rows: TapeMarketRow[]): Promise<number> {
  if (!rows.length) return 0;
  const stage = stagingDir(dirs);
  try {
    const json = join(stage, 'rows.ndjson');
    writeFileSync(json, rows.map((r) => JSON.stringify(r)).join('\n'));
    const out = join(stage, 'markets.parquet');
    await withDuckDb((db) =>
      db.run(
        `COPY (SELECT ${castList(STORE_MARKET_COLUMNS)} FROM read_json(${sqlString(json)}, format = 'newline_delimited', columns = ${columnsLiteral(STORE_MARKET_COLUMNS)}))
         TO ${sqlString(out)} (FORMAT parquet)`,
      ),
    );
    const dest = join(dirs.store, source, 'markets');
    mkdirSync(dest, { recursive: true });
    renameSync(out, join(dest, batchName()));
    return rows.length;
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/** Writes print rows of one source, one new file per UTC day they fall on. */
export async function appendPrints(dirs: TapeDirs, source: string, rows: TapePrintRow[]): Promise<number> {
  if (!rows.length) return 0;
  const stage = stagingDir(dirs);
  try {
    const json = join(stage, 'rows.ndjson');
    writeFileSync(json, rows.map((r) => JSON.stringify(r)).join('\n'));
    const select = `SELECT ${castList(STORE_PRINT_COLUMNS)} FROM read_json(${sqlString(json)}, format = 'newline_delimited', columns = ${columnsLiteral(STORE_PRINT_COLUMNS)})`;
    await withDuckDb((db) => copyPrintsByDay(db, dirs, source, stage, select));
    return rows.length;
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/**
 * Writes the rows of `select` (store print columns) as one file per UTC day into the store, through
 * `stage`: DuckDB partitions them by day, then each file is renamed into its day folder.
 */
export async function copyPrintsByDay(
  db: DuckDBConnection,
  dirs: TapeDirs,
  source: string,
  stage: string,
  select: string,
) {
  const out = join(stage, 'by-day');
  await db.run(
    `COPY (SELECT *, strftime(to_timestamp(timestamp::DOUBLE), '%Y-%m-%d') AS day FROM (${select}))
     TO ${sqlString(out)} (FORMAT parquet, PARTITION_BY (day), WRITE_PARTITION_COLUMNS false)`,
  );
  for (const part of listDir(out)) {
    const day = part.replace(/^day=/, '');
    if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) continue;
    const dest = join(dirs.store, source, 'prints', day);
    mkdirSync(dest, { recursive: true });
    for (const file of parquetIn(join(out, part))) renameSync(file, join(dest, batchName()));
  }
}

/**
 * Removes the entries of `dir` older than `olderThanMs`: staging folders of writes that died
 * half-way, built tapes whose URLs expired long ago (asking again rebuilds), stale uploads.
 */
export function clearOlderThan(dir: string, olderThanMs: number, now: Date): number {
  let removed = 0;
  for (const name of listDir(dir)) {
    const entry = join(dir, name);
    try {
      if (now.getTime() - statSync(entry).mtimeMs > olderThanMs) {
        rmSync(entry, { recursive: true, force: true });
        removed += 1;
      }
    } catch {
      // gone already
    }
  }
  return removed;
}
