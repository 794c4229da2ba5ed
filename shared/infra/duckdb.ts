import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';

/**
 * The process's DuckDB engine (in memory: it only ever queries parquet files on disk and keeps no
 * state of its own, so any number of processes can share the files without a database lock). One
 * instance per process, created on first use; each caller gets its own connection.
 */
let instance: Promise<DuckDBInstance> | null = null;

/** Threads per query: the engine shares the machine with the service's other roles. */
const THREADS = '2';

function engine(): Promise<DuckDBInstance> {
  instance ??= DuckDBInstance.create(':memory:', { threads: THREADS }).catch((err: unknown) => {
    instance = null;
    throw err;
  });
  return instance;
}

/**
 * The class DuckDB names its error by (`Binder`, `Parser`, `IO`, `Invalid Input`, `Out of Memory`, …:
 * the text before ` Error: `), or null for an error that is not DuckDB's.
 */
export const duckDbErrorClass = (err: unknown): string | null =>
  (err instanceof Error && /^([A-Za-z][A-Za-z -]*?) Error: /.exec(err.message)?.[1]) || null;

/**
 * The engine failing for the moment (out of memory, interrupted, invalidated by an earlier error):
 * asking again may succeed, whatever the statement and the files.
 */
const ENGINE_OUTAGES = new Set(['Out of Memory', 'INTERRUPT', 'FATAL']);
export const isDuckDbEngineOutage = (err: unknown) => ENGINE_OUTAGES.has(duckDbErrorClass(err) ?? '');

/**
 * The engine or the disk failing for the moment (an IO error: a file gone since it was listed, a
 * disk that fails): asking again may succeed. Every other class is a fault of the statement
 * (Binder, Parser, Catalog: our bug) or of the data it read (Invalid Input, Conversion: a damaged
 * or foreign file), which asking again does not change.
 */
export const isDuckDbOutage = (err: unknown) => isDuckDbEngineOutage(err) || duckDbErrorClass(err) === 'IO';

/** After a FATAL or INTERNAL error DuckDB refuses every later query of the instance: the next caller gets a new one. */
const INVALIDATING_CLASSES = new Set(['FATAL', 'INTERNAL']);

/** Runs `work` on a fresh connection, closed afterwards whatever happens. */
export async function withDuckDb<T>(work: (db: DuckDBConnection) => Promise<T>): Promise<T> {
  const used = engine();
  try {
    const db = await (await used).connect();
    try {
      return await work(db);
    } finally {
      db.closeSync();
    }
  } catch (err) {
    if (INVALIDATING_CLASSES.has(duckDbErrorClass(err) ?? '') && instance === used) instance = null;
    throw err;
  }
}

/** A SQL string literal (DuckDB takes file paths and patterns as literals, not parameters). */
export const sqlString = (text: string) => `'${text.replace(/'/g, "''")}'`;

/** A SQL list of string literals, e.g. the files of a `read_parquet([...])`. */
export const sqlStringList = (items: readonly string[]) => `[${items.map(sqlString).join(', ')}]`;

/** A quoted identifier, for column names read from a foreign file. */
export const sqlIdentifier = (name: string) => `"${name.replace(/"/g, '""')}"`;
