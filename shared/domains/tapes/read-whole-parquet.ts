import { basename } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { isDuckDbEngineOutage, sqlIdentifier, sqlString } from '../../infra/duckdb.js';

/** A parquet file that cannot be read to its end, or whose values its own footer rules out. */
export class UnreadableParquet extends Error {
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(`${basename(file)} cannot be read: ${reason}`);
    this.name = 'UnreadableParquet';
  }
}

/**
 * Column types whose footer statistics DuckDB reads as values it orders like the data: numbers,
 * text (byte order, as parquet's), dates and times. Other types (blobs, lists, structs) are read
 * whole and their null counts checked.
 */
const BOUNDED_TYPE =
  /^(BOOLEAN|U?(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT)|FLOAT|DOUBLE|DECIMAL\(\d+,\d+\)|VARCHAR|DATE|TIME|TIMESTAMP(_S|_MS|_NS)?|TIMESTAMP WITH TIME ZONE)$/;

/** A control character (C0, DEL, C1): in no column name a writer gives, the mark of a flipped bit in one. */
const CONTROL = /\p{Cc}/gu;
/** The name quoted with its control characters spelt \uXXXX. */
const visible = (name: string) =>
  `"${name.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}"`;

/** The longest reason quoted from DuckDB (a bad string's value is part of its message). */
const REASON_CHARS = 300;

/**
 * Reads every value of every column of `file` and answers its columns (name → DuckDB type), or
 * throws UnreadableParquet naming what is wrong. DuckDB reads a column's pages only when a query
 * asks for them, so a file whose footer parses may still fail half-way (a page that does not
 * decompress, a dictionary index out of range, bytes that are not UTF-8) or decode to values its
 * footer rules out: each column's null count and its values' range are checked against the footer's
 * statistics (for each file, all its row groups together). A flipped bit that turns one value into
 * another inside that range stays unseen: the files carry no page checksums to tell.
 */
export async function readWholeParquet(db: DuckDBConnection, file: string): Promise<Map<string, string>> {
  try {
    const described = (
      await db.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${sqlString(file)})`)
    ).getRows();
    const columns = new Map(described.map(([name, type]) => [String(name), String(type)]));
    for (const name of columns.keys())
      if (name.match(CONTROL))
        throw new UnreadableParquet(
          file,
          `a column's name holds a control character (${visible(name)}): a damaged file (no writer names a column so)`,
        );
    for (const [name, type] of columns) {
      const damage = await columnDamage(db, file, name, type);
      if (damage) throw new UnreadableParquet(file, damage);
    }
    return columns;
  } catch (err) {
    // Even an IO error is the file's here (a length field pointing past its end): it was just read through.
    if (err instanceof UnreadableParquet || isDuckDbEngineOutage(err)) throw err;
    const reason = (err as Error).message.split('\n')[0]!.replaceAll(file, basename(file));
    throw new UnreadableParquet(file, reason.slice(0, REASON_CHARS));
  }
}

/** What is wrong with one column, read whole against the footer's statistics, or null. */
async function columnDamage(
  db: DuckDBConnection,
  file: string,
  name: string,
  type: string,
): Promise<string | null> {
  const bounded = BOUNDED_TYPE.test(type);
  // Parquet's statistics leave NaN out (and a writer's NaN bound is no bound).
  const float = type === 'FLOAT' || type === 'DOUBLE';
  const notNaN = float ? ' FILTER (WHERE NOT isnan(v))' : '';
  const stat = (field: string) =>
    float ? `nullif(TRY_CAST(${field} AS ${type}), 'NaN'::${type})` : `TRY_CAST(${field} AS ${type})`;
  // A bound of the file only when every row group has one.
  const overGroups = (expr: string, agg: string) =>
    `CASE WHEN count(${expr}) = count(*) THEN ${agg}(${expr}) END`;
  const [row] = (
    await db.runAndReadAll(
      `WITH data AS (
         -- The digest (answered, so that it is computed) decodes every value whole, whatever its type.
         SELECT count(*) - count(v) AS nulls, bit_xor(hash(v)) AS digest,
                ${bounded ? `min(v)${notNaN} AS lo, max(v)${notNaN} AS hi` : 'NULL AS lo, NULL AS hi'}
         FROM (SELECT ${sqlIdentifier(name)} AS v FROM read_parquet(${sqlString(file)}))),
       footer AS (
         SELECT ${overGroups('stats_null_count', 'sum')} AS nulls,
                ${bounded ? `${overGroups(stat('stats_min_value'), 'min')} AS lo, ${overGroups(stat('stats_max_value'), 'max')} AS hi` : 'NULL AS lo, NULL AS hi'}
         FROM parquet_metadata(${sqlString(file)}) WHERE path_in_schema = ${sqlString(name)})
       SELECT coalesce(data.nulls <> footer.nulls, false),
              ${bounded ? 'coalesce(data.lo < footer.lo, false) OR coalesce(data.hi > footer.hi, false)' : 'false'},
              data.nulls, footer.nulls,
              CAST(data.lo AS VARCHAR), CAST(data.hi AS VARCHAR), CAST(footer.lo AS VARCHAR), CAST(footer.hi AS VARCHAR),
              data.digest
       FROM data, footer`,
    )
  ).getRows();
  const [nullsDiffer, outOfRange, nulls, footerNulls, lo, hi, footerLo, footerHi] = row!;
  if (nullsDiffer)
    return `column ${name} holds ${String(nulls)} nulls where the file's footer says ${String(footerNulls)} (a damaged file)`;
  if (outOfRange)
    return `column ${name} holds values from ${String(lo)} to ${String(hi)} where the file's footer says ${String(footerLo)} to ${String(footerHi)} (a damaged file)`;
  return null;
}
