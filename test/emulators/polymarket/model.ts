// In-memory records behind the emulator. They are deliberately *not* the wire shape: the wire
// forms (Gamma camelCase with JSON-encoded strings, CLOB snake_case, Data API numbers) are
// rendered from these records by wire.ts, so one admin action (e.g. a price move) shows up
// consistently on every surface.

export type Resolution = 'yes' | 'no' | '50-50';
export type TradeSide = 'BUY' | 'SELL' | '';

export interface Tag {
  id: string;
  label: string;
  slug: string;
}

export interface PricePoint {
  /** ms */
  t: number;
  /** price of the first outcome (index 0, "Yes"/"Up"/team A) */
  p: number;
}

export interface MarketRecord {
  /** Gamma market id (numeric string). */
  id: string;
  eventId: string;
  slug: string;
  question: string;
  description: string;
  resolutionSource: string;
  /** `0x` + 64 hex; the CLOB's `market` / `condition_id`. */
  conditionId: string;
  questionId: string;
  /** Index 0 is the "Yes" side (or the first named outcome); index 1 is its complement. */
  outcomes: [string, string];
  tokenIds: [string, string];
  /** Current price of outcome 0, on the tick grid. Outcome 1 is always 1 - price. */
  price: number;
  tick: number;
  minSize: number;
  negRisk: boolean;
  /** `""` when not neg-risk, like the real API. */
  negRiskMarketId: string;
  negRiskRequestId: string;
  groupItemTitle: string;
  startMs: number;
  endMs: number;
  createdMs: number;
  volume: number;
  volume24hr: number;
  liquidity: number;
  active: boolean;
  closed: boolean;
  archived: boolean;
  acceptingOrders: boolean;
  enableOrderBook: boolean;
  closedMs: number | undefined;
  resolution: Resolution | undefined;
  /** `undefined` until a UMA proposal exists; `"resolved"` once final. */
  umaStatus: string | undefined;
  umaStatuses: string[];
  lastTrade: { price: number; side: TradeSide };
  /** When the book last changed: the CLOB book `timestamp` tracks changes, not responses. */
  bookUpdatedMs: number;
  /** Bumped on every book change so level sizes change with it (and so does the hash). */
  bookVersion: number;
  /** Shares fills took out of the synthetic levels of book `version` (YES-book keys, book.ts). */
  taken?: { version: number; sizes: Map<string, number> };
  /** Price points from `createdMs`/catalogue anchor on; older history is a seeded random walk. */
  moves: PricePoint[];
  /** The instant the walk ends (= first move); history before it is synthetic. */
  historyAnchorMs: number;
  feesEnabled: boolean;
  feeType: string | undefined;
  /** Legacy V1 base fees in bps (`makerBaseFee`/`takerBaseFee`, CLOB `/fee-rate`). */
  makerBaseFee: number;
  takerBaseFee: number;
  /** Rolling crypto up/down market (auto-resolves from the clock). */
  fast: boolean;
  image: string;
}

export interface SeriesRef {
  id: string;
  slug: string;
  title: string;
  recurrence: string;
}

export interface EventRecord {
  id: string;
  slug: string;
  title: string;
  description: string;
  resolutionSource: string;
  startMs: number;
  endMs: number;
  createdMs: number;
  tags: Tag[];
  marketIds: string[];
  negRisk: boolean;
  negRiskMarketId: string;
  series: SeriesRef | undefined;
  image: string;
}

export interface Holding {
  size: number;
  avgPrice: number;
  /** Shares bought in total; defaults to the size. */
  totalBought?: number;
  realizedPnl?: number;
}

export type FaultMode = '500' | '429' | 'timeout' | 'malformed' | 'truncated' | 'slow';

export interface FaultRule {
  mode: FaultMode;
  /** `null` = every matching request until cleared. */
  remaining: number | null;
  pathPrefix: string | undefined;
  /** `timeout`: how long the connection hangs before it is dropped; `slow`: the added latency. */
  hangMs: number;
}

export interface RequestLogEntry {
  method: string;
  /** Full emulator path including the service prefix, e.g. `/gamma/markets`. */
  path: string;
  query: Record<string, unknown>;
  /** Emulator clock, ms. */
  at: number;
}

// ---- price arithmetic ------------------------------------------------------------------------

const DECIMALS = 6;

/** Round to the tick grid without float dust (0.1 + 0.2 style). */
export function onGrid(x: number, tick: number): number {
  return Number((Math.round(x / tick) * tick).toFixed(DECIMALS));
}

export function clean(x: number): number {
  return Number(x.toFixed(DECIMALS));
}

/** Decimal string the way the CLOB prints it: no exponent, no trailing zeros. */
export function fmt(x: number): string {
  return String(clean(x));
}

export function isoDate(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

export function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
