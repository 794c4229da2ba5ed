import type { VenueHttpClient } from '../../../infra/http/venue-http-client.js';
import { venueClient, type VenueClientSettings } from '../venue-client.js';
import { CONDITION_ID, TOKEN_ID } from '../external-ids.js';
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
import { ClobBookListSchema, ClobBookSchema, ClobMarketSchema, type ClobMarket } from './clob.schemas.js';
import {
  PositionsAnswerSchema,
  PublicTradesAnswerSchema,
  type PolymarketPosition,
} from './data-api.schemas.js';
import { polymarketPrint } from './public-prints.js';
import {
  GammaEventListSchema,
  GammaEventRefSchema,
  GammaEventSchema,
  GammaMarketListSchema,
  GammaMarketSchema,
  type GammaMarket,
} from './gamma.schemas.js';
import { fastMarketSlugs } from './fast-market-slugs.js';
import { gammaMarketStatus, mapGammaEvent, mapGammaMarket } from './map-market.js';
import { bookFromWire, quoteFromBook } from './order-book.js';
import { MAX_SLUG_LENGTH, parsePolymarketUrl, polymarketMarketUrlMatch } from './polymarket-urls.js';
import { ClobTrading } from './orders/clob-trading.js';
import { polymarketImporting } from './polymarket-importing.js';
import { chunks } from '../../../util/chunks.js';
import { matchesWords, queryWords } from '../../../util/search-words.js';
import type { FillFeedSource } from '../fill-feed-source.js';
import type { PolygonRpc } from './onchain/polygon-rpc.js';
import { PolymarketExchangeFills } from './onchain/exchange-fills.js';
import { TokenMarkets } from './token-markets.js';

export interface PolymarketAdapterOptions extends VenueClientSettings {
  gammaUrl: string;
  clobUrl: string;
  dataUrl: string;
  /** The Polygon client the exchanges' fills are read through; without it there is no `fillFeed`. */
  polygon?: PolygonRpc;
}

export interface PositionsQuery {
  /** Only these markets (condition ids). */
  conditionIds?: string[];
  /**
   * Smallest size reported. Default 0: the Data API's own default (1) hides dust, and a caller
   * reconciling holdings needs to see every share.
   */
  sizeThreshold?: number;
  redeemable?: boolean;
  /** Stop after this many rows (pages of 500 are fetched until then). Default 5000. */
  maxRows?: number;
}

/**
 * Batch sizes. Gamma URLs over ~8 KB are refused (414) and 100 condition ids (~6.7 KB) is the
 * documented comfortable ceiling (reference §2.1); the CLOB's `POST /books` limit is not
 * documented, so its chunks stay as small.
 */
const GAMMA_IDS_PER_CALL = 100;
const CLOB_TOKENS_PER_CALL = 100;
const LIST_PAGE = 100;
/** `listOpen` pages through at most this many events looking for matches of q/category. */
const LIST_SCAN_MAX = 1000;
const POSITIONS_PAGE = 500;
/**
 * Public trades come newest first in pages of `limit` at an `offset`; the Data API refuses an
 * offset past 10,000 (its OpenAPI), so no more than that plus a page can be read back from now.
 */
const PRINTS_PAGE = 500;
const DATA_MAX_OFFSET = 10_000;
const SLUG = /^[a-z0-9-]+$/;
const WALLET = /^0x[0-9a-fA-F]{40}$/;

/**
 * Polymarket market data through its three public APIs: Gamma (metadata, status, resolution),
 * CLOB (books, prices) and the Data API (wallet positions, public trades); orders go through `trading`.
 * Every call goes through a VenueHttpClient (one per host, each with its own circuit breaker), so
 * failures surface as VenueHttpError and a dead host fails fast.
 */
export class PolymarketAdapter implements VenueAdapter {
  readonly id = 'polymarket' as const;
  /** The Data API lists any wallet's positions. */
  readonly publicWallets = true;
  readonly importing = polymarketImporting(this);
  private readonly gamma: VenueHttpClient;
  private readonly clob: VenueHttpClient;
  private readonly data: VenueHttpClient;
  /** Orders, cancels and order reads under a user's L2 credentials, on the CLOB host's client. */
  readonly trading: ClobTrading;
  /** The exchanges' OrderFilled events on Polygon, each token's market from Gamma. */
  readonly fillFeed?: FillFeedSource;

  constructor(opts: PolymarketAdapterOptions) {
    this.gamma = venueClient(this.id, opts.gammaUrl, opts);
    this.clob = venueClient(this.id, opts.clobUrl, opts);
    this.data = venueClient(this.id, opts.dataUrl, opts);
    this.trading = new ClobTrading(this.clob);
    if (opts.polygon) {
      const tokenMarkets = new TokenMarkets((tokenIds, closed) =>
        this.gammaMarketsOfTokens(tokenIds, closed),
      );
      this.fillFeed = new PolymarketExchangeFills(opts.polygon, tokenMarkets);
    }
  }

  /** A polymarket.com event or market page (polymarket-urls.ts). */
  parseImportInput(raw: string): ImportInputParse {
    return parsePolymarketUrl(raw);
  }

  matchMarketUrl(raw: string, normalized: string): MarketUrlMatch | null {
    return polymarketMarketUrlMatch(raw, normalized);
  }

  async market(key: VenueMarketKey): Promise<VenueMarket | null> {
    const id = conditionIdOf(key);
    if (!id) return null;
    // Gamma's list hides closed markets unless asked (implicit closed=false), and one call cannot
    // ask for both. Most lookups are of open markets, so that is asked first; a closed market
    // costs a second call, an unknown one too.
    for (const closed of [false, true]) {
      const [m] = await this.gammaMarkets([id], closed);
      if (m) return mapGammaMarket(m);
    }
    return null;
  }

  async marketBySlug(slug: string): Promise<VenueMarket | null> {
    const s = slugOrNull(slug);
    if (!s) return null;
    const m = await this.gamma.get(`/markets/slug/${s}`, {
      endpoint: 'gamma.market_by_slug',
      schema: GammaMarketSchema,
      notFoundAs: 'null',
    });
    if (!m) return null;
    // The event summary inside a market has no tags; an imported market should carry its
    // category, so the parent event is read for them (one more call, on imports only).
    const ref = m.events?.[0];
    const refSlug = ref?.slug ? slugOrNull(ref.slug) : null;
    if (ref && refSlug && !ref.tags?.length) {
      const parent = await this.gamma.get(`/events/slug/${refSlug}`, {
        endpoint: 'gamma.event_by_slug',
        schema: GammaEventRefSchema,
        notFoundAs: 'null',
      });
      if (parent) return mapGammaMarket(m, parent);
    }
    return mapGammaMarket(m);
  }

  async eventBySlug(slug: string): Promise<VenueEvent | null> {
    const s = slugOrNull(slug);
    if (!s) return null;
    const e = await this.gamma.get(`/events/slug/${s}`, {
      endpoint: 'gamma.event_by_slug',
      schema: GammaEventSchema,
      notFoundAs: 'null',
    });
    return e ? mapGammaEvent(e) : null;
  }

  /**
   * Open markets that can be imported, by 24-hour volume (`minVolume` is a 24-hour floor, like the
   * ordering). Read through `/events` rather than `/markets`: event answers carry the tags (the
   * market list does not), which `category` filters on and the importer shows, and they embed the
   * full market objects. An event's 24-hour volume is the sum of its markets', so once an event
   * page falls below the floor, or below the `limit`-th best market found, nothing later can
   * enter the top and paging stops. Markets the importer would refuse are left out.
   */
  async listOpen(q: ImportableQuery): Promise<VenueMarket[]> {
    const limit = Math.max(0, Math.floor(q.limit));
    if (limit === 0) return [];
    const words = queryWords(q.q);
    const category = q.category?.trim().toLowerCase() || null;
    const found: VenueMarket[] = [];
    for (let offset = 0; offset < LIST_SCAN_MAX; offset += LIST_PAGE) {
      const events = await this.gamma.get('/events', {
        endpoint: 'gamma.events',
        schema: GammaEventListSchema,
        query: {
          closed: false,
          active: true,
          order: 'volume24hr',
          ascending: false,
          limit: LIST_PAGE,
          offset,
        },
      });
      for (const e of events) {
        for (const m of mapGammaEvent(e).markets) {
          if (m.volume24h < q.minVolume || m.unsupported || m.closed || !m.acceptingOrders) continue;
          if (words.length && !matchesText(m, words)) continue;
          if (category && !matchesCategory(m, category)) continue;
          found.push(m);
        }
      }
      found.sort((a, b) => b.volume24h - a.volume24h);
      const floor = Math.max(q.minVolume, found.length >= limit ? found[limit - 1]!.volume24h : 0);
      const last = events.at(-1);
      if (events.length < LIST_PAGE || !last || (last.volume24hr ?? 0) < floor) break;
    }
    return found.slice(0, limit);
  }

  /**
   * YES top of book for many markets: `POST /books` for the YES tokens, in chunks, YES price =
   * the YES token's midpoint. Keys without a token id get theirs from Gamma first (open markets
   * only: a closed market has no book to quote). The map is keyed by the caller's `externalId`.
   */
  async quotes(keys: VenueMarketKey[]): Promise<Map<string, VenueQuote>> {
    const tokenOf = new Map<string, string>();
    const missing: string[] = [];
    for (const key of keys) {
      const id = conditionIdOf(key);
      if (key.yesTokenId && TOKEN_ID.test(key.yesTokenId)) tokenOf.set(key.externalId, key.yesTokenId);
      else if (id) missing.push(id);
    }
    if (missing.length > 0) {
      const byId = new Map<string, string>();
      for (const m of await this.gammaMarketsChunked(missing, false)) {
        const token = m.clobTokenIds?.[0];
        if (m.conditionId && token) byId.set(m.conditionId.toLowerCase(), token);
      }
      for (const key of keys) {
        const id = conditionIdOf(key);
        const token = id ? byId.get(id) : undefined;
        if (!tokenOf.has(key.externalId) && token) tokenOf.set(key.externalId, token);
      }
    }

    const books = new Map<string, VenueQuote>();
    for (const chunk of chunks(unique([...tokenOf.values()]), CLOB_TOKENS_PER_CALL)) {
      const answer = await this.clob.post('/books', {
        endpoint: 'clob.books',
        schema: ClobBookListSchema,
        body: chunk.map((token_id) => ({ token_id })),
        // A read despite the verb: sending it twice cannot do anything twice.
        idempotent: true,
      });
      for (const b of answer) {
        const quote = quoteFromBook(b);
        if (quote) books.set(b.asset_id, quote);
      }
    }

    const quotes = new Map<string, VenueQuote>();
    for (const [externalId, token] of tokenOf) {
      const quote = books.get(token);
      if (quote) quotes.set(externalId, quote);
    }
    return quotes;
  }

  /**
   * Open / closed / resolved for many markets. Asks Gamma for the closed ones first (in chunks),
   * then for the rest among open ones; a market in neither answer is unknown to the venue and left
   * out. Keyed by the caller's `externalId`.
   */
  async statuses(keys: VenueMarketKey[]): Promise<Map<string, VenueMarketStatus>> {
    const ids = unique(keys.map(conditionIdOf).filter((id): id is string => id !== null));
    const byId = new Map<string, VenueMarketStatus>();
    for (const m of await this.gammaMarketsChunked(ids, true)) {
      if (m.conditionId) byId.set(m.conditionId.toLowerCase(), gammaMarketStatus(m));
    }
    const rest = ids.filter((id) => !byId.has(id));
    for (const m of await this.gammaMarketsChunked(rest, false)) {
      if (m.conditionId) byId.set(m.conditionId.toLowerCase(), gammaMarketStatus(m));
    }
    const statuses = new Map<string, VenueMarketStatus>();
    for (const key of keys) {
      const id = conditionIdOf(key);
      const status = id ? byId.get(id) : undefined;
      if (status) statuses.set(key.externalId, status);
    }
    return statuses;
  }

  /**
   * The book of one outcome's token, bids and asks best first whatever order the wire used.
   * Null when the market or its book is unknown (e.g. closed markets have none).
   */
  async book(key: VenueMarketKey, outcome: 'yes' | 'no'): Promise<OutcomeBook | null> {
    let token = outcome === 'yes' ? key.yesTokenId : key.noTokenId;
    if (!token) {
      const m = await this.market(key);
      token = outcome === 'yes' ? m?.yesTokenId : m?.noTokenId;
    }
    if (!token || !TOKEN_ID.test(token)) return null;
    const b = await this.clob.get('/book', {
      endpoint: 'clob.book',
      schema: ClobBookSchema,
      query: { token_id: token },
      notFoundAs: 'null',
    });
    return b ? bookFromWire(b) : null;
  }

  /** The outcome's CLOB book walked for the size asked (see walkBook). Null without a book. */
  async executableQuote(key: VenueMarketKey, q: ExecutableQuoteRequest): Promise<ExecutableQuote | null> {
    return walkBook(await this.book(key, q.outcome), q.action, { amount: q.amount, shares: q.shares });
  }

  /**
   * The rolling crypto up-or-down windows open at `now` and the next ones. Their slugs follow from
   * the clock, so one Gamma list call by slug finds them (open ones only: a window that already
   * closed is of no use to list).
   */
  async upcomingFastMarkets(now: Date): Promise<VenueMarket[]> {
    const slugs = fastMarketSlugs(now);
    const markets = await this.gamma.get('/markets', {
      endpoint: 'gamma.markets',
      schema: GammaMarketListSchema,
      query: { slug: slugs, closed: false, limit: slugs.length },
    });
    return markets.map((m) => mapGammaMarket(m));
  }

  /** Any wallet's holdings, for the public wallet-positions read (dust included, see positions()). */
  async walletPositions(wallet: string): Promise<WalletPosition[]> {
    const rows = await this.positions(wallet);
    return rows.map((p) => ({
      conditionId: p.conditionId,
      tokenId: p.tokenId,
      title: p.title,
      slug: p.slug,
      outcome: p.outcome,
      size: p.size,
      curPrice: p.curPrice,
      currentValue: p.currentValue,
      redeemable: p.redeemable,
    }));
  }

  /**
   * The market's public trades after `afterSec`, oldest first (see oldestPrintsAfter), from the
   * Data API's taker rows (each fill once). The tape is newest first, so pages are read from now
   * back until one reaches `afterSec`, or the API's offset limit: a market that printed more than
   * that since `afterSec` answers the oldest prints still reachable.
   */
  async publicPrints(key: VenueMarketKey, q: VenuePrintsQuery): Promise<VenuePrint[]> {
    const id = conditionIdOf(key);
    if (!id || q.limit <= 0) return [];
    const prints: VenuePrint[] = [];
    for (let offset = 0; offset <= DATA_MAX_OFFSET; offset += PRINTS_PAGE) {
      const page = await this.data.get('/trades', {
        endpoint: 'data.trades',
        schema: PublicTradesAnswerSchema,
        query: { market: id, takerOnly: true, limit: PRINTS_PAGE, offset },
      });
      prints.push(...page.map((t) => polymarketPrint(t, key)));
      const oldest = page.at(-1);
      if (page.length < PRINTS_PAGE || !oldest || oldest.timestamp <= q.afterSec) break;
    }
    return oldestPrintsAfter(prints, q);
  }

  health(): VenueHealthView[] {
    return [this.gamma, this.clob, this.data].map((c) => ({ ...c.health(), venue: this.id }));
  }

  // ---- Polymarket only ---------------------------------------------------------------------

  /**
   * A wallet's positions from the Data API. `wallet` is the address that holds the tokens (proxy,
   * Safe or deposit wallet), not the signing EOA, except for type-0 accounts (reference §7). The
   * Data API lags the chain: fine for display and reconciliation hints, not for money movements.
   */
  async positions(wallet: string, opts: PositionsQuery = {}): Promise<PolymarketPosition[]> {
    if (!WALLET.test(wallet)) throw new RangeError('positions: wallet must be 0x followed by 40 hex digits');
    const markets = (opts.conditionIds ?? []).map((id) => id.toLowerCase());
    if (markets.some((id) => !CONDITION_ID.test(id))) {
      throw new RangeError('positions: conditionIds must be 0x followed by 64 hex digits');
    }
    const maxRows = opts.maxRows ?? 5000;
    const rows: PolymarketPosition[] = [];
    for (let offset = 0; rows.length < maxRows; offset += POSITIONS_PAGE) {
      const page = await this.data.get('/positions', {
        endpoint: 'data.positions',
        schema: PositionsAnswerSchema,
        query: {
          user: wallet,
          market: markets.length > 0 ? markets.join(',') : undefined,
          sizeThreshold: opts.sizeThreshold ?? 0,
          redeemable: opts.redeemable,
          limit: POSITIONS_PAGE,
          offset,
        },
      });
      rows.push(...page);
      if (page.length < POSITIONS_PAGE) break;
    }
    return rows.slice(0, maxRows);
  }

  /**
   * The CLOB's own record of a market (`GET /markets/{condition_id}`): per-token `winner` flags, the
   * cross-check of a Gamma resolution (reference §10 step 3). Null when unknown.
   */
  async clobMarket(conditionId: string): Promise<ClobMarket | null> {
    const id = conditionId.trim().toLowerCase();
    if (!CONDITION_ID.test(id)) return null;
    return this.clob.get(`/markets/${id}`, {
      endpoint: 'clob.market',
      schema: ClobMarketSchema,
      notFoundAs: 'null',
    });
  }

  // ---- Gamma helpers -----------------------------------------------------------------------

  /** One `/markets?condition_ids=…` call; `closed` must be explicit (see market()). */
  private gammaMarkets(conditionIds: string[], closed: boolean): Promise<GammaMarket[]> {
    return this.gamma.get('/markets', {
      endpoint: 'gamma.markets',
      schema: GammaMarketListSchema,
      // `limit` too: Gamma pages list answers, and its default page is smaller than a chunk.
      query: { condition_ids: conditionIds, closed, limit: conditionIds.length },
    });
  }

  /** One `/markets?clob_token_ids=…` call: the markets these outcome tokens belong to. */
  private gammaMarketsOfTokens(tokenIds: string[], closed: boolean): Promise<GammaMarket[]> {
    return this.gamma.get('/markets', {
      endpoint: 'gamma.markets_by_token',
      schema: GammaMarketListSchema,
      query: { clob_token_ids: tokenIds, closed, limit: tokenIds.length },
    });
  }

  private async gammaMarketsChunked(conditionIds: string[], closed: boolean): Promise<GammaMarket[]> {
    const all: GammaMarket[] = [];
    for (const chunk of chunks(conditionIds, GAMMA_IDS_PER_CALL))
      all.push(...(await this.gammaMarkets(chunk, closed)));
    return all;
  }
}

/** The key's condition id in stored (lower-case) form, or null when it is not one. */
function conditionIdOf(key: VenueMarketKey): string | null {
  const id = key.externalId.trim().toLowerCase();
  return CONDITION_ID.test(id) ? id : null;
}

/** A slug safe to put in a path, lower-cased; null for anything else (it cannot exist upstream). */
function slugOrNull(slug: string): string | null {
  const s = slug.trim().toLowerCase();
  return s.length > 0 && s.length <= MAX_SLUG_LENGTH && SLUG.test(s) ? s : null;
}

/** Every word of `q` in the question, its event's or outcome's name, a slug or a tag. */
function matchesText(m: VenueMarket, words: string[]): boolean {
  return matchesWords([m.question, m.eventName, m.outcomeName, m.slug, m.eventSlug, ...m.tags], words);
}

/** A tag's label or its slug form (`Crypto Prices` or `crypto-prices`), case-insensitively. */
function matchesCategory(m: VenueMarket, category: string): boolean {
  const asSlug = (label: string) => label.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  return m.tags.some((t) => t.toLowerCase() === category || asSlug(t) === category);
}

function unique<T>(xs: T[]): T[] {
  return [...new Set(xs)];
}
