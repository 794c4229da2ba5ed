import { basename } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';

/**
 * What every print holds whatever its source, checked at import before anything reaches the store
 * (a value a flipped bit or a misread column changed, inside the range the file's footer allows).
 * Each rule holds for what the recorder writes (sim fills, Polymarket's and Kalshi's public trades:
 * tape-rows.ts and the venues' public-prints.ts) and for public dumps of Polymarket's on-chain fills
 * (price = usd / tokens of the token traded, parties and hashes as the chain has them). A rule that
 * some real source breaks is not here: a print's market missing from markets.parquet is one (a dump's
 * markets file may be older than its trades: counted as `orphan_prints`, never served).
 *
 * Rounding the venues use: amounts to the micro-unit (Polymarket, sim), Kalshi's prices to the
 * hundredth of a cent; a dump may round amounts to the cent. So usd_amount is tokens × the price of
 * the outcome traded (the YES price, or one minus it for NO) within half a cent on each amount and
 * half a hundredth of a cent on the price.
 */
const AMOUNT_HALF_UNIT = 0.005;
const PRICE_HALF_TICK = 0.00005;

/** |usd − tokens × p| within what rounding each of the three to its unit can make of it. */
const withinRounding = (p: string) =>
  `abs(usd_amount - token_amount * ${p}) <= ${AMOUNT_HALF_UNIT} * (1 + ${p}) + ${PRICE_HALF_TICK} * token_amount`;

/** `starts with 0x` ⇒ `0x and one of these numbers of hex digits`: a value naming something on an EVM chain. */
const hexWhenPrefixed = (column: string, digits: readonly number[]) =>
  `starts_with(${column}, '0x') AND NOT regexp_full_match(${column}, '0x(${digits.map((n) => `[0-9a-fA-F]{${n}}`).join('|')})')`;

/**
 * The print's market (by id) in markets.parquet has a value of `column` and none equal to the print's
 * (any row of it may: a file may list a market twice). Compared without case: a hex id carries none,
 * and a dump may spell its ids in one case in one file and the other in the other.
 */
const differsFromMarket = (column: string) =>
  `${column} IS NOT NULL
   AND EXISTS (SELECT 1 FROM mk WHERE mk.id = q.market_id AND mk.${column} IS NOT NULL)
   AND NOT EXISTS (SELECT 1 FROM mk WHERE mk.id = q.market_id AND lower(mk.${column}) = lower(q.${column}))`;

interface PrintRule {
  column: string;
  /** SQL condition over `q` (the prints, with `file_row`) and `mk` (markets' id, condition_id, event_id). */
  breaks: string;
  /** SQL text of what the offending row shows. */
  shows: string;
  /** What must hold, as the refusal says it. */
  rule: string;
}

const text = (column: string) => `'${column} ' || coalesce(CAST(${column} AS VARCHAR), 'NULL')`;

const PRINT_RULES: readonly PrintRule[] = [
  {
    column: 'usd_amount',
    breaks: 'usd_amount < 0',
    shows: text('usd_amount'),
    rule: 'amounts are never negative',
  },
  {
    column: 'token_amount',
    breaks: 'token_amount < 0',
    shows: text('token_amount'),
    rule: 'amounts are never negative',
  },
  {
    column: 'usd_amount',
    // NOT (…) is true for a NaN too: DuckDB orders NaN above every number.
    breaks: `NOT (${withinRounding('price')} OR ${withinRounding('(1 - price)')})`,
    shows: `format('usd_amount {} with token_amount {} at price {} (token_amount × price = {}, × (1 − price) = {})',
                   usd_amount, token_amount, price, round(token_amount * price, 6), round(token_amount * (1 - price), 6))`,
    rule: 'usd_amount is token_amount times the price of the outcome traded (price, or 1 − price for NO) within the venues’ rounding',
  },
  {
    column: 'transaction_hash',
    breaks: hexWhenPrefixed('transaction_hash', [64]),
    shows: text('transaction_hash'),
    rule: 'a transaction_hash beginning with 0x is an EVM transaction hash: 0x and 64 hex digits',
  },
  ...(['maker', 'taker'] as const).map((column) => ({
    column,
    breaks: hexWhenPrefixed(column, [40, 64]),
    shows: text(column),
    rule: `a ${column} beginning with 0x is an EVM address: 0x and 40 hex digits (64 as a 32-byte word)`,
  })),
  ...(['condition_id', 'event_id'] as const).map((column) => ({
    column,
    breaks: differsFromMarket(column),
    shows: `format('${column} {} where markets.parquet says {} for market {}', ${column},
                   (SELECT string_agg(DISTINCT mk.${column}, ', ') FROM mk WHERE mk.id = q.market_id), market_id)`,
    rule: `a print's ${column} is its market's (the row of markets.parquet with its market_id)`,
  })),
];

/**
 * The first rule the prints in temp table `q` break (with `file_row`, the row's index in the file),
 * against the markets in temp table `mk` (id, condition_id, event_id as the file has them, NULL where
 * absent), as a sentence naming the prints' file, the column and the first offending row; null when
 * every rule holds.
 */
export async function brokenPrintRule(db: DuckDBConnection, file: string): Promise<string | null> {
  for (const r of PRINT_RULES) {
    const [row] = (
      await db.runAndReadAll(
        `SELECT file_row, ${r.shows}, count(*) OVER () FROM q WHERE ${r.breaks} ORDER BY file_row LIMIT 1`,
      )
    ).getRows();
    if (!row) continue;
    const [fileRow, shows, count] = row;
    const rows = Number(count) === 1 ? 'the only such row' : `${String(count)} such rows`;
    return `${basename(file)}, column ${r.column}, row ${String(fileRow)} (counted from 0; ${rows}): ${String(shows)}, but ${r.rule} (a damaged file, or a column that does not mean what the tape schema says)`;
  }
  return null;
}
