import type { FillFeedSource } from './fill-feed-source.js';
import type { ExternalVenueId, VenueId } from './venue-id.js';
import type { ExternalIdCase, VenueMoney } from './venue-conventions.js';

/**
 * The one interface through which trading, reads and jobs reach a venue's market data. `sim` is an
 * adapter like the external ones (its book is our own LMSR). Orders do not go through it: a trade
 * reaches its venue through the venue's `VenueTrading` (trading/venue-trading.ts), registered under
 * the same id. Prices are YES-probabilities in [0, 1]; sizes are shares.
 */

/** How a venue market is addressed on the venue: enough to fetch its prices, book and resolution. */
export interface VenueMarketKey {
  /** Polymarket condition id, Kalshi ticker, or the service id for sim. */
  externalId: string;
  /** Outcome instruments where the venue has them (Polymarket CLOB token ids). */
  yesTokenId?: string | null;
  noTokenId?: string | null;
}

/** A venue market as the importer stores it (one binary question). */
export interface VenueMarket extends VenueMarketKey {
  venue: VenueId;
  question: string;
  description: string | null;
  /** The venue's page for this market (what `markets/check?url=` compares against). */
  url: string | null;
  slug: string | null;
  eventId: string | null;
  eventSlug: string | null;
  eventName: string | null;
  /** The candidate's label inside a multi-outcome event (`groupItemTitle`), else null. */
  outcomeName: string | null;
  outcomes: [string, string];
  yesPrice: number | null;
  bestBid: number | null;
  bestAsk: number | null;
  tickSize: number;
  minOrderSize: number;
  negRisk: boolean;
  feeRateBps: number;
  volume24h: number;
  volumeTotal: number;
  liquidity: number;
  endDate: Date | null;
  /** The venue's tag names as it shows them (Gamma's `label`, e.g. `World Cup`); the first is the category. */
  tags: string[];
  /**
   * The same tags' machine names where the venue has them (Gamma's `slug`, e.g. `world-cup`): clients
   * filter the market list by these (`tags=world-cup`), so the importer stores them beside the labels.
   */
  tagSlugs?: string[];
  category: string | null;
  /** Trading finished on the venue (not by itself a resolution). */
  closed: boolean;
  acceptingOrders: boolean;
  /** Set once the venue's resolution is final (see resolution()). */
  resolution: VenueResolution | null;
  /** Why the importer must refuse this market, when it must (e.g. an unsupported protocol version). */
  unsupported: string | null;
}

export interface VenueEvent {
  venue: VenueId;
  id: string;
  slug: string;
  title: string;
  negRisk: boolean;
  markets: VenueMarket[];
}

/** Top-of-book snapshot of one market's YES side. */
export interface VenueQuote {
  yesPrice: number;
  bestBid: number | null;
  bestAsk: number | null;
  spread: number | null;
}

/** Final outcome: `yes` true/false, or a void (50-50) resolution paying `payoutYes` per YES share. */
export interface VenueResolution {
  outcome: boolean | null;
  payoutYes: number;
  resolvedAt: Date | null;
}

export interface BookLevel {
  price: number;
  size: number;
}
/** The book of one outcome: bids best first (highest), asks best first (lowest). */
export interface OutcomeBook {
  bids: BookLevel[];
  asks: BookLevel[];
  tickSize: number;
  minOrderSize: number;
}

/** The state of a venue market the sync job needs: open, closed awaiting resolution, or resolved. */
export interface VenueMarketStatus {
  closed: boolean;
  acceptingOrders: boolean;
  resolution: VenueResolution | null;
}

/** One holding of an external wallet on the venue (its public positions API). */
export interface WalletPosition {
  conditionId: string;
  tokenId: string;
  title: string | null;
  slug: string | null;
  outcome: string | null;
  size: number;
  curPrice: number | null;
  currentValue: number | null;
  redeemable: boolean;
}

/**
 * One public trade print of a venue market (the venue's public trades tape), as a backtest tape
 * records it. Prints are normalised to the YES outcome: a taker buying NO at 0.30 is a SELL of YES
 * at 0.70, so a tape reads as one price series per market.
 */
export interface VenuePrint {
  /** The venue's id of the print, stable across fetches: the recorder's dedupe key. */
  id: string;
  /** When the print happened, Unix seconds. */
  timestamp: number;
  /** Price of the YES outcome at the print, in [0, 1]. */
  yesPrice: number;
  /** Shares (outcome tokens, Kalshi contracts) that changed hands. */
  shares: number;
  /** USD that changed hands (shares x the price of the outcome actually traded). */
  usd: number;
  /** The taker's side on YES (see above). */
  side: 'BUY' | 'SELL';
  /** On-chain coordinates when the venue settles on a chain (Polymarket), else null. */
  transactionHash: string | null;
  blockNumber: number | null;
  logIndex: number | null;
  /** Public addresses or account ids of the two parties where the venue publishes them, else null. */
  maker: string | null;
  taker: string | null;
}

/** Which prints of a market to fetch: those strictly after `afterSec`, oldest first, at most `limit`. */
export interface VenuePrintsQuery {
  afterSec: number;
  limit: number;
}

export interface VenueHealthView {
  venue: VenueId;
  base_url: string;
  circuit: 'closed' | 'open' | 'half_open';
  last_success_at: string | null;
  last_error_at: string | null;
  last_error: string | null;
  consecutive_failures: number;
}

export interface ImportableQuery {
  limit: number;
  minVolume: number;
  q?: string;
  category?: string;
}

/** What taking liquidity from a book costs: the average and the worst price reached. */
export interface ExecutableQuote {
  /** Best price on the side taken (best ask for a buy, best bid for a sell). */
  bestPrice: number;
  avgPrice: number;
  /** The last level touched: the limit price that fills the whole size. */
  worstPrice: number;
  shares: number;
  /** USD paid (buy) or received (sell). */
  amount: number;
  /** False when the book ran out before the size was filled. */
  filled: boolean;
  source: 'orderbook' | 'lmsr';
}

export interface ExecutableQuoteRequest {
  outcome: 'yes' | 'no';
  action: 'buy' | 'sell';
  amount?: number;
  shares?: number;
}

/**
 * What a market page URL or a ticker pasted to import names on its venue, read without fetching:
 * slug-addressed pages (`event`, `market`) or ticker-addressed ones (`ticker`, `series`). The shapes
 * are those a market import records for its worker.
 */
export type ImportInputTarget =
  | { kind: 'event'; eventSlug: string }
  | { kind: 'market'; eventSlug: string | null; marketSlug: string }
  | { kind: 'ticker'; ticker: string; series: string }
  | { kind: 'series'; series: string };
/** The target, or why the input is refused (whole sentences, for a `fix`). */
export type ImportInputParse = ImportInputTarget | { kind: 'error'; reason: string };

/**
 * The imported markets a page URL of the venue may be (`markets/check?url=`): a market whose URL is
 * one of `urls`, whose venue id is one of `externalIds`, or of an event among `eventRefs`.
 */
export interface MarketUrlMatch {
  /** Imported markets come from external venues only. */
  venue: ExternalVenueId;
  urls: string[];
  externalIds: string[];
  eventRefs: string[];
}

export interface VenueAdapter {
  readonly id: VenueId;
  /** One market by its venue key; null when the venue does not know it. */
  market(key: VenueMarketKey): Promise<VenueMarket | null>;
  /** One event by its slug with every market; null when unknown. */
  eventBySlug(slug: string): Promise<VenueEvent | null>;
  /** One market by its slug; null when unknown. */
  marketBySlug(slug: string): Promise<VenueMarket | null>;
  /** Open, tradeable venue markets by volume, for `markets/importable`. */
  listOpen(q: ImportableQuery): Promise<VenueMarket[]>;
  /** Top of book for many markets at once; markets the venue did not answer for are absent. */
  quotes(keys: VenueMarketKey[]): Promise<Map<string, VenueQuote>>;
  /** Open/closed/resolved for many markets at once; absent when unknown to the venue. */
  statuses(keys: VenueMarketKey[]): Promise<Map<string, VenueMarketStatus>>;
  /** The book of one outcome. */
  book(key: VenueMarketKey, outcome: 'yes' | 'no'): Promise<OutcomeBook | null>;
  /**
   * What buying `amount` USD (or selling `shares`) of one outcome would execute at right now: the
   * venue's book walked, or the sim LMSR's exact quote. Null when the side has no liquidity.
   */
  executableQuote(key: VenueMarketKey, q: ExecutableQuoteRequest): Promise<ExecutableQuote | null>;
  /**
   * The venue's rolling short-window markets (crypto 5 m / 15 m) open now or soon, for
   * `GET /api/sdk/fast-markets`; venues without them answer [].
   */
  upcomingFastMarkets(now: Date): Promise<VenueMarket[]>;
  /** The holdings of any wallet address on the venue; venues without public wallets answer []. */
  walletPositions(wallet: string): Promise<WalletPosition[]>;
  /**
   * The venue publishes every wallet's holdings (`walletPositions` answers for any address): what
   * `GET /wallet/{address}/positions` reads, and where the holder of a position can be looked up.
   */
  readonly publicWallets?: boolean;
  /**
   * A registered venue's money: paper or real, and its currency (venue-conventions.ts). Absent:
   * real dollars. The built-in venues' money is declared in venue-conventions.ts.
   */
  readonly money?: VenueMoney;
  /**
   * The case a registered venue's market ids are stored and looked up in (venue-conventions.ts).
   * Absent: lower case. The built-in venues' case is declared in venue-conventions.ts.
   */
  readonly externalIdCase?: ExternalIdCase;
  /**
   * The market's public trade prints after a moment, oldest first (the venue's public trades tape:
   * Polymarket's Data API trades, Kalshi's /markets/trades). Absent for venues without one; sim's
   * prints are our own fills, read from the ledger by the tape recorder.
   */
  publicPrints?(key: VenueMarketKey, q: VenuePrintsQuery): Promise<VenuePrint[]>;
  /**
   * The venue's settled fills as they are mined, naming the wallets that traded (Polymarket's
   * exchange events on Polygon): what the fill feed follows and Reactor matches. Absent for venues
   * that do not publish who traded.
   */
  readonly fillFeed?: FillFeedSource;
  /** Base URLs and circuit state, for `GET /api/admin/venues`. */
  health(): VenueHealthView[];
  /** What importing from the venue fetches and answers; absent for venues nothing is imported from. */
  readonly importing?: VenueImporting;
  /** Reads a page URL or ticker pasted to import a market; absent for venues nothing is imported from. */
  parseImportInput?(raw: string): ImportInputParse;
  /**
   * What a URL may be among imported markets when it is one of this venue's pages, else null.
   * `normalized` is the URL as markets are stored (normalizeMarketUrl).
   */
  matchMarketUrl?(raw: string, normalized: string): MarketUrlMatch | null;
  /** The open events of a series, soonest to close first: venues that group events in series. */
  openEventsOfSeries?(series: string): Promise<VenueEvent[]>;
}

/** What a persisted import request names on its venue (the fields the venue's parse recorded). */
export interface ImportRequestTarget {
  kind: 'event' | 'market' | 'ticker' | 'series';
  eventSlug: string | null;
  marketSlug: string | null;
  ticker: string | null;
  series: string | null;
}

/** What a request names on its venue: one market, or an event's markets (`wholeEvent`). */
export interface ImportTargets {
  event: VenueEvent | null;
  markets: VenueMarket[];
  /** The agent asked for a whole event (a page of outcomes), not one market. */
  wholeEvent: boolean;
}

/** Nothing on the venue answers to the request: the sentence for the agent and what to send instead. */
export interface ImportTargetsNotFound {
  notFound: string;
  fix: string;
}

/**
 * How markets are imported from a venue, beyond its market data: what a request names there, and
 * the venue's own words and rules in the answer. Venues nothing is imported from have none.
 */
export interface VenueImporting {
  /** The venue's name in sentences ("closed for trading on Polymarket"). */
  readonly label: string;
  /** The 422 of an input the venue's parse does not take: its `msg`, and the `fix` when the parse gave no reason. */
  readonly invalidInput: { msg: string; fix: string };
  /** How an agent gets the outcomes of an event past the default number. */
  readonly moreOutcomes: string;
  /** The markets a request names, fetched from the venue. */
  targets(req: ImportRequestTarget): Promise<ImportTargets | ImportTargetsNotFound>;
  /**
   * Why an open outcome of a whole event is left out (e.g. Kalshi's priced past 98¢: decided in
   * effect), else null. Absent: every open outcome is importable.
   */
  skipOpenOutcome?(m: VenueMarket): string | null;
}

export const isNotFound = (t: ImportTargets | ImportTargetsNotFound): t is ImportTargetsNotFound =>
  'notFound' in t;
