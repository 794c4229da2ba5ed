import { walkBook } from '../../shared/domains/venues/book-walk.js';
import type {
  ExecutableQuote,
  ExecutableQuoteRequest,
  ImportableQuery,
  ImportInputParse,
  OutcomeBook,
  VenueAdapter,
  VenueEvent,
  VenueHealthView,
  VenueMarket,
  VenueMarketKey,
  VenueMarketStatus,
  VenueQuote,
  WalletPosition,
} from '../../shared/domains/venues/venue-adapter.js';
import type { VenueMoney } from '../../shared/domains/venues/venue-conventions.js';
import type { VenueId } from '../../shared/domains/venues/venue-id.js';
import type { ExchangeMarket, FakeExchange } from './fake-exchange.js';

/** The fixture venue's market pages: `https://fixture.example/markets/<slug>`. */
export const FIXTURE_BASE_URL = 'https://fixture.example';
const PAGE = /^https?:\/\/fixture\.example\/markets\/([a-z0-9-]+)\/?$/i;
const TICK_SIZE = 0.01;

/** The fixture venue's market data, read from its in-memory exchange through the adapter seam. */
export class FixtureAdapter implements VenueAdapter {
  constructor(
    readonly id: VenueId,
    private readonly exchange: FakeExchange,
    /** Absent: real dollars, as the harness's fixture venue trades. */
    readonly money?: VenueMoney,
  ) {}

  async market(key: VenueMarketKey): Promise<VenueMarket | null> {
    const m = this.exchange.market(key.externalId);
    return m && this.toVenueMarket(m);
  }

  async eventBySlug(): Promise<VenueEvent | null> {
    return null;
  }

  async marketBySlug(slug: string): Promise<VenueMarket | null> {
    const m = this.exchange.marketBySlug(slug);
    return m && this.toVenueMarket(m);
  }

  async listOpen(q: ImportableQuery): Promise<VenueMarket[]> {
    const text = q.q?.toLowerCase();
    return this.exchange
      .openMarkets()
      .filter((m) => !text || m.question.toLowerCase().includes(text))
      .slice(0, q.limit)
      .map((m) => this.toVenueMarket(m));
  }

  async quotes(keys: VenueMarketKey[]): Promise<Map<string, VenueQuote>> {
    const out = new Map<string, VenueQuote>();
    for (const key of keys) {
      const m = this.exchange.market(key.externalId);
      const book = m && this.exchange.book(m.id, 'yes');
      if (!m || !book) continue;
      const bestBid = book.bids[0]?.price ?? null;
      const bestAsk = book.asks[0]?.price ?? null;
      out.set(key.externalId, {
        yesPrice: m.yes,
        bestBid,
        bestAsk,
        spread: bestBid !== null && bestAsk !== null ? bestAsk - bestBid : null,
      });
    }
    return out;
  }

  async statuses(keys: VenueMarketKey[]): Promise<Map<string, VenueMarketStatus>> {
    const out = new Map<string, VenueMarketStatus>();
    for (const key of keys) {
      const m = this.exchange.market(key.externalId);
      if (m)
        out.set(key.externalId, {
          closed: m.closed,
          acceptingOrders: !m.closed,
          resolution: resolutionOf(m),
        });
    }
    return out;
  }

  async book(key: VenueMarketKey, outcome: 'yes' | 'no'): Promise<OutcomeBook | null> {
    const book = this.exchange.book(key.externalId, outcome);
    return book && { ...book, tickSize: TICK_SIZE, minOrderSize: 1 };
  }

  async executableQuote(key: VenueMarketKey, q: ExecutableQuoteRequest): Promise<ExecutableQuote | null> {
    return walkBook(await this.book(key, q.outcome), q.action, q);
  }

  async upcomingFastMarkets(): Promise<VenueMarket[]> {
    return [];
  }

  async walletPositions(): Promise<WalletPosition[]> {
    return [];
  }

  health(): VenueHealthView[] {
    return [
      {
        venue: this.id,
        base_url: FIXTURE_BASE_URL,
        circuit: 'closed',
        last_success_at: null,
        last_error_at: null,
        last_error: null,
        consecutive_failures: 0,
      },
    ];
  }

  parseImportInput(raw: string): ImportInputParse {
    const slug = PAGE.exec(raw.trim())?.[1];
    return slug
      ? { kind: 'market', eventSlug: null, marketSlug: slug.toLowerCase() }
      : { kind: 'error', reason: `Send the URL of a market page: ${FIXTURE_BASE_URL}/markets/<slug>.` };
  }

  private toVenueMarket(m: ExchangeMarket): VenueMarket {
    const book = this.exchange.book(m.id, 'yes');
    return {
      venue: this.id,
      externalId: m.id,
      yesTokenId: `${m.id}-yes`,
      noTokenId: `${m.id}-no`,
      question: m.question,
      description: null,
      url: `${FIXTURE_BASE_URL}/markets/${m.slug}`,
      slug: m.slug,
      eventId: null,
      eventSlug: null,
      eventName: null,
      outcomeName: null,
      outcomes: ['Yes', 'No'],
      yesPrice: m.yes,
      bestBid: book?.bids[0]?.price ?? null,
      bestAsk: book?.asks[0]?.price ?? null,
      tickSize: TICK_SIZE,
      minOrderSize: 1,
      negRisk: false,
      feeRateBps: 0,
      volume24h: 50_000,
      volumeTotal: 500_000,
      liquidity: 10_000,
      endDate: m.endDate,
      tags: [],
      category: null,
      closed: m.closed,
      acceptingOrders: !m.closed,
      resolution: resolutionOf(m),
      unsupported: null,
    };
  }
}

const resolutionOf = (m: ExchangeMarket) =>
  m.outcome === null ? null : { outcome: m.outcome, payoutYes: m.outcome ? 1 : 0, resolvedAt: m.resolvedAt };
