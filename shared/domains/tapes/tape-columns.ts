/**
 * The columns of a tape as the official client's DuckDB reader queries them (markets.parquet and
 * quant.parquet), with the types we write. The store keeps the same columns plus `source` (where a
 * row came from) and, for prints, `print_id` (the dedupe key; never published).
 */
export const MARKET_COLUMNS = {
  id: 'VARCHAR',
  question: 'VARCHAR',
  slug: 'VARCHAR',
  condition_id: 'VARCHAR',
  token1: 'VARCHAR',
  token2: 'VARCHAR',
  answer1: 'VARCHAR',
  answer2: 'VARCHAR',
  closed: 'INTEGER',
  active: 'INTEGER',
  archived: 'INTEGER',
  /** Python-list text of the two outcome prices, e.g. `['0.0005', '0.9995']`. */
  outcome_prices: 'VARCHAR',
  volume: 'DOUBLE',
  event_id: 'VARCHAR',
  event_slug: 'VARCHAR',
  event_title: 'VARCHAR',
  created_at: 'TIMESTAMPTZ',
  /** Read by the client as the resolution time. */
  end_date: 'TIMESTAMPTZ',
  updated_at: 'TIMESTAMPTZ',
  neg_risk: 'INTEGER',
} as const;

export const QUANT_COLUMNS = {
  /** Unix seconds. */
  timestamp: 'UBIGINT',
  block_number: 'UBIGINT',
  transaction_hash: 'VARCHAR',
  log_index: 'UBIGINT',
  /** = markets.id */
  market_id: 'VARCHAR',
  condition_id: 'VARCHAR',
  event_id: 'VARCHAR',
  /** The YES token's price at the print. */
  price: 'DOUBLE',
  usd_amount: 'DOUBLE',
  token_amount: 'DOUBLE',
  /** The taker's side on YES: BUY or SELL. */
  side: 'VARCHAR',
  maker: 'VARCHAR',
  taker: 'VARCHAR',
} as const;

/** Columns the store adds to both files. */
export const SOURCE_COLUMN = { source: 'VARCHAR' } as const;
/** The store's dedupe key of a print: a print recorded twice is served once. */
export const PRINT_ID_COLUMN = { print_id: 'VARCHAR' } as const;

export type ColumnTypes = Record<string, string>;

/** One market row as the store keeps it (timestamps as ISO text, integers as numbers). */
export type TapeMarketRow = { -readonly [K in keyof typeof MARKET_COLUMNS]: string | number | null } & {
  source: string;
};
/** One print row as the store keeps it. */
export type TapePrintRow = { -readonly [K in keyof typeof QUANT_COLUMNS]: string | number | null } & {
  source: string;
  print_id: string;
};

/** `read_json`'s `columns` argument: `{name: 'TYPE', …}` as DuckDB struct literal text. */
export const columnsLiteral = (columns: ColumnTypes) =>
  `{${Object.entries(columns)
    .map(([name, type]) => `'${name}': '${type}'`)
    .join(', ')}}`;

/** `col1, col2, …` in the published order. */
export const columnList = (columns: ColumnTypes) => Object.keys(columns).join(', ');

/** `CAST(col AS TYPE) AS col, …`: a projection that coerces a foreign file to the published types. */
export const castList = (columns: ColumnTypes) =>
  Object.entries(columns)
    .map(([name, type]) => `CAST(${name} AS ${type}) AS ${name}`)
    .join(', ');

/** Outcome prices as the client parses them: a Python list of two quoted decimals. */
export const outcomePricesText = (yes: number, no: number) => `['${trimPrice(yes)}', '${trimPrice(no)}']`;

const trimPrice = (p: number) => String(Number(p.toFixed(6)));
