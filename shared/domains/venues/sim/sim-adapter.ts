import type { MarketRecord } from '../../markets/market.model.js';
import type { Models } from '../../models.js';
import { fromMicro, MICRO } from '../../money.js';
import { isServiceMarketId } from '../external-ids.js';
import type {
  ExecutableQuote,
  ExecutableQuoteRequest,
  ImportableQuery,
  OutcomeBook,
  VenueAdapter,
  VenueEvent,
  VenueMarket,
  VenueMarketKey,
  VenueMarketStatus,
  VenueQuote,
  VenueResolution,
  WalletPosition,
} from '../venue-adapter.js';
import { price } from '../../markets/lmsr.js';
import { bookState, SHARE_STEP_MICRO, SIM_MIN_ORDER_SIZE, syntheticBook } from '../../markets/sim-book.js';
import { sidePrice } from '../../side-price.js';
import { queryWords, wordsFilter } from '../../../util/search-words.js';
import { VOID_RESOLUTION, yesPayoutMicro } from '../../markets/resolution.js';
import { decideBuyFill, decideSellFill } from './sim-decisions.js';

/** Trading on the sim book is open: active, and not a tracking market (real trading only). */
const tradeable = (m: MarketRecord) => m.status === 'active' && m.simTradeable && !m.analyticsOnly;

function resolutionOf(m: MarketRecord): VenueResolution | null {
  if (m.status !== 'resolved') return null;
  return {
    outcome: m.outcome,
    payoutYes: fromMicro(yesPayoutMicro(m) ?? VOID_RESOLUTION.payoutYesMicro),
    resolvedAt: m.resolvedAt,
  };
}

/** The YES price: the book's marginal price while it trades, the payout once resolved. */
function yesPriceOf(m: MarketRecord): number {
  const resolution = resolutionOf(m);
  return resolution ? resolution.payoutYes : price(bookState(m), 'yes');
}

function statusOf(m: MarketRecord): VenueMarketStatus {
  return { closed: m.status !== 'active', acceptingOrders: tradeable(m), resolution: resolutionOf(m) };
}

/** An LMSR quotes every size at its marginal price: no spread at the top of the book. */
function quoteOf(m: MarketRecord): VenueQuote {
  const yesPrice = yesPriceOf(m);
  return tradeable(m)
    ? { yesPrice, bestBid: yesPrice, bestAsk: yesPrice, spread: 0 }
    : { yesPrice, bestBid: null, bestAsk: null, spread: null };
}

function venueMarketOf(m: MarketRecord): VenueMarket {
  const quote = quoteOf(m);
  return {
    venue: 'sim',
    externalId: m._id,
    yesTokenId: null,
    noTokenId: null,
    question: m.question,
    description: m.description,
    url: m.url,
    slug: null,
    eventId: m.eventId,
    eventSlug: null,
    eventName: m.eventName,
    outcomeName: m.outcomeName,
    outcomes: ['Yes', 'No'],
    yesPrice: quote.yesPrice,
    bestBid: quote.bestBid,
    bestAsk: quote.bestAsk,
    tickSize: m.tickSize,
    minOrderSize: SIM_MIN_ORDER_SIZE,
    negRisk: false,
    feeRateBps: m.feeRateBps,
    volume24h: fromMicro(m.volume24hMicro),
    volumeTotal: fromMicro(m.volumeTotalMicro),
    liquidity: m.book.b,
    endDate: m.resolvesAt,
    tags: m.tags,
    category: m.category,
    ...statusOf(m),
    unsupported: null,
  };
}

/**
 * The `sim` venue: our own Market collection, each market's book an LMSR (markets/lmsr.ts) kept by
 * the market log. Every market with a sim book is a sim market, addressed by its service market id;
 * sim markets have no slugs, and sim events are found by their event id. There is nothing remote,
 * so no health to report.
 */
export class SimAdapter implements VenueAdapter {
  readonly id = 'sim' as const;

  constructor(
    private readonly models: Pick<Models, 'Market'>,
    /** The clock that decides whether a catalogue market is past its resolution time. */
    private readonly now: () => Date = () => new Date(),
  ) {}

  private async find(keys: VenueMarketKey[]): Promise<MarketRecord[]> {
    const ids = keys.map((k) => k.externalId).filter(isServiceMarketId);
    return ids.length ? this.models.Market.find({ _id: { $in: ids } }).lean() : [];
  }

  async market(key: VenueMarketKey): Promise<VenueMarket | null> {
    const [m] = await this.find([key]);
    return m ? venueMarketOf(m) : null;
  }

  /** A generated multi-option event by its event id (sim events have no other slug). */
  async eventBySlug(slug: string): Promise<VenueEvent | null> {
    const markets = await this.models.Market.find({ eventId: slug, importSource: 'sim' })
      .sort({ createdAt: 1, _id: 1 })
      .lean();
    const first = markets[0];
    if (!first) return null;
    return {
      venue: 'sim',
      id: slug,
      slug,
      title: first.eventName ?? first.question,
      negRisk: false,
      markets: markets.map(venueMarketOf),
    };
  }

  async marketBySlug(): Promise<VenueMarket | null> {
    return null;
  }

  /** Active, tradeable markets of the generated sim catalogue, by 24 h volume. */
  async listOpen(q: ImportableQuery): Promise<VenueMarket[]> {
    const filter: Record<string, unknown> = {
      importSource: 'sim',
      status: 'active',
      simTradeable: true,
      analyticsOnly: false,
      volume24hMicro: { $gte: Math.round(q.minVolume * MICRO) },
    };
    if (q.q) Object.assign(filter, wordsFilter(queryWords(q.q), ['question', 'tags']));
    if (q.category) filter.category = q.category;
    const markets = await this.models.Market.find(filter)
      .sort({ volume24hMicro: -1, _id: 1 })
      .limit(q.limit)
      .lean();
    return markets.map(venueMarketOf);
  }

  async quotes(keys: VenueMarketKey[]): Promise<Map<string, VenueQuote>> {
    return new Map((await this.find(keys)).map((m) => [m._id, quoteOf(m)]));
  }

  async statuses(keys: VenueMarketKey[]): Promise<Map<string, VenueMarketStatus>> {
    return new Map((await this.find(keys)).map((m) => [m._id, statusOf(m)]));
  }

  /**
   * Not a real book: the LMSR curve shown as a few levels on the tick grid (see `syntheticBook`).
   * A market that no longer trades has an empty book.
   */
  async book(key: VenueMarketKey, outcome: 'yes' | 'no'): Promise<OutcomeBook | null> {
    const [m] = await this.find([key]);
    if (!m) return null;
    const ladder = tradeable(m) ? syntheticBook(bookState(m), outcome, m.tickSize) : { bids: [], asks: [] };
    return { ...ladder, tickSize: m.tickSize, minOrderSize: SIM_MIN_ORDER_SIZE };
  }

  /**
   * The LMSR's exact quote: the same decision a live trade takes at the current state, sized as the
   * trade API sizes it (buys to the cent, sells to the share step). Null once the market no longer
   * trades; a size too small to fill quotes nothing (`filled: false`).
   */
  async executableQuote(key: VenueMarketKey, q: ExecutableQuoteRequest): Promise<ExecutableQuote | null> {
    const [m] = await this.find([key]);
    if (!m || !tradeable(m)) return null;
    const best = sidePrice(price(bookState(m), 'yes'), q.outcome);
    const none = (filled: boolean): ExecutableQuote => ({
      bestPrice: best,
      avgPrice: best,
      worstPrice: best,
      shares: 0,
      amount: 0,
      filled,
      source: 'lmsr',
    });
    const size =
      q.action === 'buy'
        ? Math.round((q.amount ?? 0) * 100) * 10_000
        : Math.round(((q.shares ?? 0) * MICRO) / SHARE_STEP_MICRO) * SHARE_STEP_MICRO;
    if (size <= 0) return none(true);
    const fill =
      q.action === 'buy'
        ? decideBuyFill(m, q.outcome, size, null, this.now())
        : decideSellFill(m, q.outcome, size, null, this.now());
    if (!fill.ok) return none(false);
    const { sharesMicro, amountMicro, priceAfter } = fill.value;
    return {
      bestPrice: best,
      avgPrice: amountMicro / sharesMicro,
      worstPrice: sidePrice(priceAfter ?? 0, q.outcome),
      shares: fromMicro(sharesMicro),
      amount: fromMicro(amountMicro),
      filled: true,
      source: 'lmsr',
    };
  }

  /** Sim balances live in this service; there are no public wallets to read. */
  async walletPositions(): Promise<WalletPosition[]> {
    return [];
  }

  /** The sim catalogue has no rolling short-window markets of its own. */
  async upcomingFastMarkets(): Promise<VenueMarket[]> {
    return [];
  }

  health(): [] {
    return [];
  }
}
