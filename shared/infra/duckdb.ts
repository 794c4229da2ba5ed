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

/** Runs `work` on a fresh connection, closed afterwards whatever happens. */
export async function withDuckDb<T>(work: (db: DuckDBConnection) => Promise<T>): Promise<T> {
  const db = await (await engine()).connect();
  try {
    return await work(db);
  } finally {
    db.closeSync();
  }
}

/** A SQL string literal (DuckDB takes file paths and patterns as literals, not parameters). */
export const sqlString = (text: string) => `'${text.replace(/'/g, "''")}'`;

/** A SQL list of string literals, e.g. the files of a `read_parquet([...])`. */
export const sqlStringList = (items: readonly string[]) => `[${items.map(sqlString).join(', ')}]`;
