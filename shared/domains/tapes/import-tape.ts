import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { sha256OfFile } from '../../infra/content-digest.js';
import { isDuckDbEngineOutage, sqlString, withDuckDb } from '../../infra/duckdb.js';
import { MARKET_COLUMNS, QUANT_COLUMNS } from './tape-columns.js';
import { AppError, notFound, unavailable } from '../../infra/errors.js';
import { isVenueId } from '../venues/venue-id.js';
import { readWholeParquet, UnreadableParquet } from './read-whole-parquet.js';
import { brokenPrintRule } from './tape-invariants.js';
import { batchName, copyPrintsByDay, SOURCE_NAME, tapeDirs, type TapeDirs } from './tape-store.js';

/**
 * The recorder writes every venue's markets (and its prints, where the venue publishes them) under
 * the venue's id: an import may not write into a source named like a venue of this process.
 */
const isRecordedSource = (source: string) => isVenueId(source);

/** Columns a file must have (what the official client's replay reads); the rest may be absent (NULL). */
const REQUIRED_MARKET_COLUMNS = [
  'id',
  'question',
  'created_at',
  'end_date',
  'closed',
  'outcome_prices',
  'volume',
];
const REQUIRED_QUANT_COLUMNS = ['timestamp', 'market_id', 'price', 'usd_amount', 'token_amount', 'side'];

/** An import refused for its input: the sentence says what is wrong and how to fix the files. */
export class TapeImportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TapeImportError';
  }
}

export interface TapeImportSummary {
  source: string;
  markets: number;
  prints: number;
  first_day: string | null;
  last_day: string | null;
  /** Prints of markets the markets file does not have: stored, but never served. */
  orphan_prints: number;
  /** The same two files were imported into this source before: nothing was written. */
  already_imported: boolean;
}

/** A file's columns, once every value of it has been read: nothing of a damaged file is imported. */
async function columnsOf(db: DuckDBConnection, file: string): Promise<Map<string, string>> {
  try {
    return await readWholeParquet(db, file);
  } catch (err) {
    if (err instanceof UnreadableParquet) throw new TapeImportError(err.message);
    if (isDuckDbEngineOutage(err)) throw unavailable('The tape store', err);
    throw err;
  }
}

/** The projection of a foreign file onto the store's columns: absent optional columns are NULL. */
function projection(
  columns: Map<string, string>,
  wanted: Record<string, string>,
  overrides: Record<string, string>,
) {
  return Object.entries(wanted)
    .map(([name, type]) => {
      if (overrides[name]) return `${overrides[name]} AS ${name}`;
      return columns.has(name) ? `TRY_CAST(${name} AS ${type}) AS ${name}` : `NULL::${type} AS ${name}`;
    })
    .join(', ');
}

const one = async (db: DuckDBConnection, sql: string) => (await db.runAndReadAll(sql)).getRows()[0] ?? [];

/**
 * Loads an external dataset (markets and quant parquet in the tape schema, e.g. a public dump of
 * Polymarket's on-chain trades) into the store as a source of its own. Written like the recorder's
 * batches (immutable files renamed into place), so it is safe while the service runs; importing
 * the same two files again writes nothing.
 */
export async function importTape(
  dirs: TapeDirs,
  source: string,
  marketsFile: string,
  quantFile: string,
): Promise<TapeImportSummary> {
  if (!SOURCE_NAME.test(source))
    throw new TapeImportError(
      `source "${source}": use lower-case letters, digits and dashes (e.g. "pm-onchain-2025")`,
    );
  if (isRecordedSource(source))
    throw new TapeImportError(`source "${source}" is the recorder's own: name the import differently`);
  for (const f of [marketsFile, quantFile])
    if (!existsSync(f)) throw new TapeImportError(`${f} does not exist`);
  const fingerprint = createHash('sha256')
    .update(
      `${(await sha256OfFile(marketsFile)).toString('hex')}:${(await sha256OfFile(quantFile)).toString('hex')}`,
    )
    .digest('hex');
  const receipt = join(dirs.store, source, 'imports', `${fingerprint}.json`);
  if (existsSync(receipt))
    return { ...(JSON.parse(readFileSync(receipt, 'utf8')) as TapeImportSummary), already_imported: true };

  const stage = join(dirs.staging, randomUUID());
  mkdirSync(stage, { recursive: true });
  try {
    const summary = await withDuckDb(async (db) => {
      const mCols = await columnsOf(db, marketsFile);
      const qCols = await columnsOf(db, quantFile);
      const missing = [
        ...REQUIRED_MARKET_COLUMNS.filter((c) => !mCols.has(c)).map((c) => `markets.${c}`),
        ...REQUIRED_QUANT_COLUMNS.filter((c) => !qCols.has(c)).map((c) => `quant.${c}`),
      ];
      if (missing.length)
        throw new TapeImportError(
          `missing columns: ${missing.join(', ')} (see the tape schema in the README)`,
        );
      const tsType = qCols.get('timestamp')!;
      // Unix seconds as the client reads them; a TIMESTAMP column is converted.
      const tsExpr = /TIMESTAMP/.test(tsType)
        ? 'CAST(epoch(timestamp) AS UBIGINT)'
        : 'TRY_CAST(timestamp AS UBIGINT)';
      const src = sqlString(source);
      // With each row's index in the file, for a refusal to name the row.
      await db.run(
        `CREATE TEMP TABLE q AS SELECT ${projection(qCols, QUANT_COLUMNS, {
          timestamp: tsExpr,
          side: 'upper(CAST(side AS VARCHAR))',
        })}, file_row_number AS file_row FROM read_parquet(${sqlString(quantFile)}, file_row_number = true)`,
      );
      const [badRows, maxTs] = await one(
        db,
        `SELECT count(*) FILTER (WHERE timestamp IS NULL OR market_id IS NULL OR price IS NULL OR price < 0 OR price > 1
                                 OR side NOT IN ('BUY', 'SELL') OR usd_amount IS NULL OR token_amount IS NULL),
                max(timestamp) FROM q`,
      );
      if (Number(badRows))
        throw new TapeImportError(
          `${badRows} quant rows lack a timestamp, market_id, amounts, a price in [0, 1] or a side of BUY/SELL`,
        );
      if (Number(maxTs ?? 0) > 1e11)
        throw new TapeImportError('quant.timestamp looks like milliseconds: the schema wants Unix seconds');
      await db.run(
        `CREATE TEMP TABLE m AS SELECT * REPLACE (coalesce(slug, id) AS slug, coalesce(condition_id, id) AS condition_id,
                coalesce(answer1, 'Yes') AS answer1, coalesce(answer2, 'No') AS answer2,
                coalesce(updated_at, now()) AS updated_at, coalesce(active, 1 - closed) AS active,
                coalesce(archived, 0) AS archived, coalesce(neg_risk, 0) AS neg_risk)
         FROM (SELECT ${projection(mCols, MARKET_COLUMNS, {})} FROM read_parquet(${sqlString(marketsFile)}))`,
      );
      const [badMarkets] = await one(
        db,
        'SELECT count(*) FILTER (WHERE id IS NULL OR question IS NULL OR created_at IS NULL OR closed IS NULL) FROM m',
      );
      if (Number(badMarkets))
        throw new TapeImportError(
          `${badMarkets} market rows lack an id, a question, created_at or closed (the replay lists a market from created_at)`,
        );
      // The markets' own condition and event ids (not the defaults above), for the prints to agree with.
      await db.run(
        `CREATE TEMP TABLE mk AS SELECT ${projection(mCols, { id: 'VARCHAR', condition_id: 'VARCHAR', event_id: 'VARCHAR' }, {})}
         FROM read_parquet(${sqlString(marketsFile)})`,
      );
      const broken = await brokenPrintRule(db, quantFile);
      if (broken) throw new TapeImportError(broken);
      const markets = join(stage, 'markets.parquet');
      await db.run(`COPY (SELECT *, ${src} AS source FROM m) TO ${sqlString(markets)} (FORMAT parquet)`);
      // A print's id is its content: a re-import of the same rows (other files) is served once.
      await copyPrintsByDay(
        db,
        dirs,
        source,
        stage,
        `SELECT * EXCLUDE (file_row), ${src} AS source,
           md5(concat_ws('|', transaction_hash, log_index, market_id, timestamp, price, usd_amount, token_amount, side, maker, taker)) AS print_id
         FROM q`,
      );
      const [marketRows] = await one(db, 'SELECT count(*) FROM m');
      const [prints, first, last, orphans] = await one(
        db,
        `SELECT count(*), strftime(to_timestamp(min(timestamp)::DOUBLE), '%Y-%m-%d'),
                strftime(to_timestamp(max(timestamp)::DOUBLE), '%Y-%m-%d'),
                count(*) FILTER (WHERE market_id NOT IN (SELECT id FROM m)) FROM q`,
      );
      return {
        markets,
        result: {
          source,
          markets: Number(marketRows),
          prints: Number(prints),
          first_day: first == null ? null : String(first),
          last_day: last == null ? null : String(last),
          orphan_prints: Number(orphans),
          already_imported: false,
        } satisfies TapeImportSummary,
      };
    });
    // The markets last: a slice serves a market once its row is there, and its prints are by then.
    const marketsDir = join(dirs.store, source, 'markets');
    mkdirSync(marketsDir, { recursive: true });
    renameSync(summary.markets, join(marketsDir, batchName()));
    mkdirSync(join(dirs.store, source, 'imports'), { recursive: true });
    writeFileSync(receipt, `${JSON.stringify(summary.result, null, 2)}\n`);
    return summary.result;
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/**
 * `POST /api/admin/tapes/import`: imports the pair uploaded under `uploadId` (api/http/tape-uploads.ts)
 * and removes the upload whatever happens (an upload is used once).
 */
export async function importUpload(
  dataDir: string,
  uploadId: string,
  source: string,
): Promise<TapeImportSummary> {
  const dirs = tapeDirs(dataDir);
  const upload = join(dirs.uploads, uploadId);
  const [markets, quant] = [join(upload, 'markets.parquet'), join(upload, 'quant.parquet')];
  if (!existsSync(markets) || !existsSync(quant))
    throw notFound(
      'Upload',
      'PUT both files first: /api/admin/tapes/uploads/<upload_id>/markets.parquet and …/quant.parquet.',
    );
  try {
    return await importTape(dirs, source, markets, quant);
  } catch (err) {
    if (!(err instanceof TapeImportError)) throw err;
    throw new AppError(
      422,
      'invalid_tape',
      err.message,
      'Fix the files to the tape schema (README, “Backtest tapes”) and upload them again.',
    );
  } finally {
    rmSync(upload, { recursive: true, force: true });
  }
}
