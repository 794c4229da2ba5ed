// In-memory records behind the emulator, independent of any wire shape: Kalshi's snake_case
// (current `*_dollars`/`*_fp` strings or legacy integer cents) and DFlow's camelCase are both
// rendered from these, so one admin action shows up the same on every surface.

/** Kalshi's response statuses (kalshi.md §1.5). `settled` is only ever emitted, never stored. */
export const MARKET_STATUSES = [
  'initialized',
  'active',
  'inactive',
  'closed',
  'determined',
  'disputed',
  'amended',
  'finalized',
] as const;
export type MarketStatus = (typeof MARKET_STATUSES)[number];
export type MarketResult = '' | 'yes' | 'no' | 'scalar';
/** `current`: `*_dollars`/`*_fp` only (Kalshi since 2026-03-12); `legacy`: integer cents only; `both`. */
export type WireMode = 'current' | 'legacy' | 'both';
export type RedemptionStatus = 'open' | 'pending' | 'closed';

/** Prices are integer "pips" of 1/10000 dollar: "0.4200" = 4200. No floats in the books. */
export type Pips = number;
export const ONE_DOLLAR: Pips = 10_000;

export interface MarketRecord {
  ticker: string;
  eventTicker: string;
  seriesTicker: string;
  marketType: 'binary' | 'scalar';
  title: string;
  subtitle: string;
  yesSubTitle: string;
  noSubTitle: string;
  status: MarketStatus;
  /** ms */
  openTime: number;
  closeTime: number;
  expectedExpirationTime: number;
  latestExpirationTime: number;
  canCloseEarly: boolean;
  settlementTimerSeconds: number;
  /** Best YES bid / ask; null = that side has no quotes. NO is the mirror: noBid = 1 − yesAsk. */
  yesBid: Pips | null;
  yesAsk: Pips | null;
  lastPrice: Pips;
  previousYesBid: Pips;
  previousYesAsk: Pips;
  previousPrice: Pips;
  /** Contracts resting at each book level (the best level; deeper levels hold more). */
  depth: number;
  volume: number;
  volume24h: number;
  openInterest: number;
  result: MarketResult;
  /** What a YES contract paid; set at determination. */
  settlementValue: Pips | null;
  /** ms */
  settlementTs: number | null;
  expirationValue: string;
  rulesPrimary: string;
  rulesSecondary: string;
  strikeType: string;
  floorStrike: number | null;
  capStrike: number | null;
  priceLevelStructure: 'linear_cent' | 'deci_cent' | 'tapered_deci_cent';
  wire: WireMode;
  /** Emit the pre-3.x status `settled` instead of `finalized`. */
  legacySettled: boolean;
  /** Past the historical cutoff: only `/historical/markets` serves it. */
  historical: boolean;
  /** DFlow side: tokenized yet? `/order` initializes it on the fly (and charges for it). */
  dflowInitialized: boolean;
  redemptionStatus: RedemptionStatus;
  /** Scalar payout of YES in basis points of $1 (DFlow's `scalarOutcomePct`). */
  scalarOutcomePct: number | null;
  /** ms; for `last_updated_ts`-style fields. */
  updatedAt: number;
}

export interface EventRecord {
  eventTicker: string;
  seriesTicker: string;
  title: string;
  subTitle: string;
  mutuallyExclusive: boolean;
  category: string;
  /** ms */
  strikeDate: number | null;
  updatedAt: number;
}

export interface SeriesRecord {
  ticker: string;
  title: string;
  category: string;
  frequency: string;
}

export const FAULT_MODES = ['500', '429', '503', 'timeout', 'slow', 'unhealthy', 'drop'] as const;
export type FaultMode = (typeof FAULT_MODES)[number];
/** Modes that only the Solana RPC understands (it answers them inside JSON-RPC). */
export const RPC_FAULT_MODES: FaultMode[] = ['unhealthy', 'drop'];

export interface FaultRule {
  mode: FaultMode;
  /** null = until cleared */
  remaining: number | null;
  pathPrefix?: string;
  hangMs: number;
}

export interface RequestLogEntry {
  method: string;
  path: string;
  query: Record<string, unknown>;
  /** JSON-RPC method, for requests to the Solana stub. */
  rpcMethod?: string;
  at: number;
}

export const pipsToDollars = (p: Pips) => (p / ONE_DOLLAR).toFixed(4);
export const dollarsToPips = (d: number): Pips => Math.round(d * ONE_DOLLAR);
/** USDC atomic units (6 dp) per contract at a price. */
export const pipsToAtomic = (p: Pips) => BigInt(p) * 100n;
