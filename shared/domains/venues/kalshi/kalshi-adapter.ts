import type { VenueHttpClient } from '../../../infra/http/venue-http-client.js';
import { venueClient, type VenueClientSettings } from '../venue-client.js';
import { walkBook } from '../book-walk.js';
import type {
  ImportInputParse,
  MarketUrlMatch,
  ExecutableQuote,
  ExecutableQuoteRequest,
  ImportableQuery,
  OutcomeBook,
  VenueAdapter,
  VenueEvent,
  VenueHealthView,
  VenueMarket,
  VenueMarketKey,
  VenueMarketStatus,
  VenuePrint,
  VenuePrintsQuery,
  VenueQuote,
  WalletPosition,
} from '../venue-adapter.js';
import { oldestPrintsAfter } from '../print-window.js';
import {
  KalshiEventAnswerSchema,
  KalshiEventListSchema,
  KalshiMarketAnswerSchema,
  KalshiMarketListSchema,
  KalshiOrderbookSchema,
  KalshiTradesAnswerSchema,
  type KalshiEvent,
  type KalshiMarket,
} from './kalshi.schemas.js';
import { kalshiMarketUrlMatch, kalshiTickerOrNull as tickerOrNull, parseKalshiInput } from './kalshi-urls.js';
import { kalshiOutcomeBook, kalshiQuote, kalshiStatus, mapKalshiMarket } from './map-market.js';
import { kalshiImporting } from './kalshi-importing.js';
import { kalshiPrint } from './public-prints.js';
import { chunks } from '../../../util/chunks.js';
import { matchesWords, queryWords } from '../../../util/search-words.js';

export interface KalshiAdapterOptions extends VenueClientSettings {
  /** KALSHI_BASE_URL, ending in /trade-api/v2. */
  baseUrl: string;
}

/** `tickers=` lists per `GET /markets` call: ~100 tickers keep the URL far below 8 KB. */
const TICKERS_PER_CALL = 100;
/** Events per `GET /events` page (the API's maximum), and how many `listOpen` scans at most. */
const EVENTS_PAGE = 200;
const LIST_SCAN_MAX = 1000;
/**
 * Trades per `/markets/trades` page (the API's maximum), and how many `publicPrints` reads back at
 * most: a bound against a runaway cursor, far above what a recorder polling every few minutes meets.
 */
const TRADES_PAGE = 1000;
const TRADES_SCAN_MAX = 50_000;

/**
 * Kalshi public market data (Trade API v2, no key) for imports, prices and resolutions. Trading
 * goes through DFlow on Solana, not through this host. A thin client over VenueHttpClient rather
 * than the `kalshi-typescript` SDK: the calls are a handful of GETs, and going through our client
 * gives them the same timeouts, retries, circuit breaker, metrics and 503 `venue_unavailable` as
 * every other venue; the zod schemas accept both the current and the legacy wire, which the SDK's
 * generated types do not.
 */
export class KalshiAdapter implements VenueAdapter {
  readonly id = 'kalshi' as const;
  readonly importing = kalshiImporting(this);
  private readonly http: VenueHttpClient;

  constructor(opts: KalshiAdapterOptions) {
    this.http = venueClient(this.id, opts.baseUrl, opts);
  }

  /** A kalshi.com URL or a bare ticker (kalshi-urls.ts). */
  parseImportInput(raw: string): ImportInputParse {
    return parseKalshiInput(raw);
  }

  matchMarketUrl(raw: string, normalized: string): MarketUrlMatch | null {
    return kalshiMarketUrlMatch(raw, normalized);
  }

  /** One market by ticker (any case), with its event's title and category. */
  async market(key: VenueMarketKey): Promise<VenueMarket | null> {
    return this.marketBySlug(key.externalId);
  }

  /** For Kalshi the "slug" of a market is its ticker. Settled markets past the cutoff come from /historical. */
  async marketBySlug(slug: string): Promise<VenueMarket | null> {
    const m = await this.rawMarket(slug);
    if (!m) return null;
    const event = await this.rawEvent(m.eventTicker, false);
    return mapKalshiMarket(m, event?.event ?? null);
  }

  /** For Kalshi the "slug" of an event is its event ticker; every market of it, mapped with it. */
  async eventBySlug(slug: string): Promise<VenueEvent | null> {
    const answer = await this.rawEvent(slug, true);
    if (!answer) return null;
    const markets = answer.event.markets ?? answer.markets ?? [];
    return mapKalshiEvent(answer.event, markets);
  }

  /** The open events of a series with their markets, soonest to close first (series URLs, §1.6). */
  async openEventsOfSeries(series: string): Promise<VenueEvent[]> {
    const s = series.trim().toUpperCase();
    if (!/^[A-Z0-9]+$/.test(s)) return [];
    const answer = await this.http.get('/events', {
      endpoint: 'kalshi.events',
      schema: KalshiEventListSchema,
      query: { series_ticker: s, status: 'open', with_nested_markets: true, limit: EVENTS_PAGE },
    });
    const closes = (e: VenueEvent) =>
      Math.min(...e.markets.map((m) => m.endDate?.getTime() ?? Number.POSITIVE_INFINITY));
    return answer.events
      .map((e) => mapKalshiEvent(e, e.markets ?? []))
      .filter((e) => e.markets.length > 0)
      .sort((a, b) => closes(a) - closes(b));
  }

  /**
   * Open markets by 24-hour volume, read through `/events?status=open` (event answers carry the
   * category the market list lacks, and embed the markets); pages until LIST_SCAN_MAX events.
   */
  async listOpen(q: ImportableQuery): Promise<VenueMarket[]> {
    const limit = Math.max(0, Math.floor(q.limit));
    if (limit === 0) return [];
    const words = queryWords(q.q);
    const category = q.category?.trim().toLowerCase() || null;
    const found: VenueMarket[] = [];
    let cursor: string | undefined;
    for (let scanned = 0; scanned < LIST_SCAN_MAX; scanned += EVENTS_PAGE) {
      const page = await this.http.get('/events', {
        endpoint: 'kalshi.events',
        schema: KalshiEventListSchema,
        query: { status: 'open', with_nested_markets: true, limit: EVENTS_PAGE, cursor },
      });
      for (const e of page.events) {
        if (category && e.category?.toLowerCase() !== category) continue;
        for (const m of mapKalshiEvent(e, e.markets ?? []).markets) {
          if (m.volume24h < q.minVolume || m.unsupported || !m.acceptingOrders) continue;
          // Every word of `q` in the question, the event's name, the ticker or a tag.
          if (words.length && !matchesWords([m.question, m.eventName, m.externalId, ...m.tags], words))
            continue;
          found.push(m);
        }
      }
      if (!page.cursor || page.events.length === 0) break;
      cursor = page.cursor;
    }
    return found.sort((a, b) => b.volume24h - a.volume24h).slice(0, limit);
  }

  /** YES top of book of many markets from `GET /markets?tickers=` (chunked); keyed by the caller's externalId. */
  async quotes(keys: VenueMarketKey[]): Promise<Map<string, VenueQuote>> {
    const byTicker = await this.marketsByTicker(keys);
    const quotes = new Map<string, VenueQuote>();
    for (const key of keys) {
      const m = byTicker.get(key.externalId.trim().toUpperCase());
      const q = m ? kalshiQuote(m) : null;
      if (q) quotes.set(key.externalId, q);
    }
    return quotes;
  }

  /**
   * Open / closed / resolved of many markets. Tickers `/markets` no longer lists (settled past the
   * historical cutoff) are asked of `/historical/markets/{t}`; a ticker unknown to both is left out.
   */
  async statuses(keys: VenueMarketKey[]): Promise<Map<string, VenueMarketStatus>> {
    const byTicker = await this.marketsByTicker(keys);
    for (const key of keys) {
      const t = tickerOrNull(key.externalId);
      if (!t || byTicker.has(t)) continue;
      const old = await this.historicalMarket(t);
      if (old) byTicker.set(t, old);
    }
    const statuses = new Map<string, VenueMarketStatus>();
    for (const key of keys) {
      const m = byTicker.get(key.externalId.trim().toUpperCase());
      if (m) statuses.set(key.externalId, kalshiStatus(m));
    }
    return statuses;
  }

  /** One outcome's book from `GET /markets/{t}/orderbook` (bids of both sides; asks mirrored). */
  async book(key: VenueMarketKey, outcome: 'yes' | 'no'): Promise<OutcomeBook | null> {
    const t = tickerOrNull(key.externalId);
    if (!t) return null;
    const b = await this.http.get(`/markets/${t}/orderbook`, {
      endpoint: 'kalshi.orderbook',
      schema: KalshiOrderbookSchema,
      notFoundAs: 'null',
    });
    return b ? kalshiOutcomeBook(b, outcome, 0.01) : null;
  }

  async executableQuote(key: VenueMarketKey, q: ExecutableQuoteRequest): Promise<ExecutableQuote | null> {
    return walkBook(await this.book(key, q.outcome), q.action, { amount: q.amount, shares: q.shares });
  }

  /** Kalshi's short-window series are not listed as fast markets by this service (yet): none. */
  async upcomingFastMarkets(): Promise<VenueMarket[]> {
    return [];
  }

  /** Kalshi has no public per-wallet positions API (holdings live on Solana, read by the DFlow side). */
  async walletPositions(): Promise<WalletPosition[]> {
    return [];
  }

  /**
   * The market's public trades after `afterSec`, oldest first (see oldestPrintsAfter). The tape is
   * newest first: `min_ts` bounds it and the cursor walks it back to there. `min_ts` is sent as
   * `afterSec` itself and the bound applied again here, since whether Kalshi's is inclusive is not
   * documented.
   */
  async publicPrints(key: VenueMarketKey, q: VenuePrintsQuery): Promise<VenuePrint[]> {
    const t = tickerOrNull(key.externalId);
    if (!t || q.limit <= 0) return [];
    const prints: VenuePrint[] = [];
    let cursor: string | undefined;
    for (let read = 0; read < TRADES_SCAN_MAX; read += TRADES_PAGE) {
      const page = await this.http.get('/markets/trades', {
        endpoint: 'kalshi.trades',
        schema: KalshiTradesAnswerSchema,
        query: { ticker: t, min_ts: Math.max(0, Math.floor(q.afterSec)), limit: TRADES_PAGE, cursor },
      });
      prints.push(...page.trades.map(kalshiPrint));
      if (!page.cursor || page.trades.length === 0) break;
      cursor = page.cursor;
    }
    return oldestPrintsAfter(prints, q);
  }

  health(): VenueHealthView[] {
    return [{ ...this.http.health(), venue: this.id }];
  }

  // ---- Kalshi helpers ----------------------------------------------------------------------

  private async rawMarket(ticker: string): Promise<KalshiMarket | null> {
    const t = tickerOrNull(ticker);
    if (!t) return null;
    const answer = await this.http.get(`/markets/${t}`, {
      endpoint: 'kalshi.market',
      schema: KalshiMarketAnswerSchema,
      notFoundAs: 'null',
    });
    return answer?.market ?? (await this.historicalMarket(t));
  }

  private async historicalMarket(ticker: string): Promise<KalshiMarket | null> {
    const answer = await this.http.get(`/historical/markets/${ticker}`, {
      endpoint: 'kalshi.historical_market',
      schema: KalshiMarketAnswerSchema,
      notFoundAs: 'null',
    });
    return answer?.market ?? null;
  }

  private async rawEvent(eventTicker: string, nested: boolean) {
    const t = tickerOrNull(eventTicker);
    if (!t) return null;
    return this.http.get(`/events/${t}`, {
      endpoint: 'kalshi.event',
      schema: KalshiEventAnswerSchema,
      query: nested ? { with_nested_markets: true } : {},
      notFoundAs: 'null',
    });
  }

  private async marketsByTicker(keys: VenueMarketKey[]): Promise<Map<string, KalshiMarket>> {
    const tickers = [...new Set(keys.map((k) => tickerOrNull(k.externalId)).filter((t): t is string => !!t))];
    const byTicker = new Map<string, KalshiMarket>();
    for (const chunk of chunks(tickers, TICKERS_PER_CALL)) {
      const answer = await this.http.get('/markets', {
        endpoint: 'kalshi.markets',
        schema: KalshiMarketListSchema,
        query: { tickers: chunk.join(','), limit: chunk.length },
      });
      for (const m of answer.markets) byTicker.set(m.ticker.toUpperCase(), m);
    }
    return byTicker;
  }
}

/** Event + its markets → VenueEvent (mutually exclusive brackets are not Polymarket's neg-risk). */
function mapKalshiEvent(e: KalshiEvent, markets: KalshiMarket[]): VenueEvent {
  const ticker = e.event_ticker.toUpperCase();
  return {
    venue: 'kalshi',
    id: ticker,
    slug: ticker,
    title: e.title,
    negRisk: false,
    markets: markets.map((m) => mapKalshiMarket(m, e)),
  };
}
