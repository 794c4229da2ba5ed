import { bestAsk, bestBid, bookOf, midpoint, spread } from './book.js';
import { FEE_SCHEDULE } from './fees.js';
import { clean, fmt, isoDate, isoDay, type EventRecord, type MarketRecord } from './model.js';
import type { PolymarketState } from './state.js';

// Rendering of records into the exact public wire shapes (reference §2.2, §2.3, §3.2). Note the
// deliberate Gamma quirks: `outcomes`, `outcomePrices`, `clobTokenIds` and `umaResolutionStatuses`
// are JSON-*encoded strings*; `volume`/`liquidity` are strings next to numeric `volumeNum`/
// `liquidityNum`/`volume24hr`; tick and min size are numbers.

/** Outcome prices as decimal strings, settled ("1"/"0", "0.5"/"0.5") once resolved. */
export function outcomePrices(m: MarketRecord): [string, string] {
  if (m.resolution === 'yes') return ['1', '0'];
  if (m.resolution === 'no') return ['0', '1'];
  if (m.resolution === '50-50') return ['0.5', '0.5'];
  return [fmt(m.price), fmt(1 - m.price)];
}

/** Gamma's `closedTime` uses a Postgres-style timestamp, unlike the ISO dates elsewhere. */
const pgTime = (ms: number) =>
  new Date(ms)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, '+00');

export function gammaMarket(state: PolymarketState, m: MarketRecord): Record<string, unknown> {
  const e = state.eventOf(m);
  const yes = bookOf(m, 0);
  const money = (x: number) => String(clean(x));
  const w: Record<string, unknown> = {
    id: m.id,
    question: m.question,
    conditionId: m.conditionId,
    slug: m.slug,
    resolutionSource: m.resolutionSource,
    endDate: isoDate(m.endMs),
    startDate: isoDate(m.startMs),
    image: m.image,
    icon: m.image,
    description: m.description,
    outcomes: JSON.stringify(m.outcomes),
    outcomePrices: JSON.stringify(outcomePrices(m)),
    volume: money(m.volume),
    active: m.active,
    closed: m.closed,
    marketMakerAddress: '',
    createdAt: isoDate(m.createdMs),
    updatedAt: isoDate(Math.max(m.bookUpdatedMs, m.createdMs)),
    new: false,
    featured: false,
    archived: m.archived,
    restricted: true,
    groupItemThreshold: '0',
    questionID: m.questionId,
    enableOrderBook: m.enableOrderBook,
    orderPriceMinTickSize: m.tick,
    orderMinSize: m.minSize,
    volumeNum: clean(m.volume),
    liquidity: money(m.liquidity),
    liquidityNum: clean(m.liquidity),
    endDateIso: isoDay(m.endMs),
    startDateIso: isoDay(m.startMs),
    hasReviewedDates: true,
    volume24hr: clean(m.volume24hr),
    volume1wk: clean(Math.min(m.volume, m.volume24hr * 5.2)),
    volume1mo: clean(Math.min(m.volume, m.volume24hr * 19.7)),
    volume1yr: clean(m.volume),
    volumeClob: clean(m.volume),
    volume24hrClob: clean(m.volume24hr),
    liquidityClob: clean(m.liquidity),
    clobTokenIds: JSON.stringify(m.tokenIds),
    umaBond: '500',
    umaReward: '5',
    acceptingOrders: m.acceptingOrders,
    acceptingOrdersTimestamp: isoDate(m.createdMs),
    negRisk: m.negRisk,
    events: [
      {
        id: e.id,
        ticker: e.slug,
        slug: e.slug,
        title: e.title,
        startDate: isoDate(e.startMs),
        endDate: isoDate(e.endMs),
        active: true,
        closed: eventClosed(state, e),
        negRisk: e.negRisk,
      },
    ],
    ready: false,
    funded: false,
    cyom: false,
    competitive: 0.9,
    approved: true,
    rewardsMinSize: 0,
    rewardsMaxSpread: 0,
    spread: spread(yes) ?? 0,
    oneDayPriceChange: 0,
    lastTradePrice: m.lastTrade.price,
    bestBid: bestBid(yes) ?? 0,
    bestAsk: bestAsk(yes) ?? 1,
    automaticallyActive: true,
    clearBookOnStart: m.fast,
    manualActivation: false,
    negRiskOther: false,
    umaResolutionStatuses: JSON.stringify(m.umaStatuses),
    pendingDeployment: false,
    deploying: false,
    rfqEnabled: false,
    holdingRewardsEnabled: false,
    feesEnabled: m.feesEnabled,
    makerBaseFee: m.makerBaseFee,
    takerBaseFee: m.takerBaseFee,
    version: 'v1',
  };
  if (m.groupItemTitle) w.groupItemTitle = m.groupItemTitle;
  if (m.negRisk) {
    w.negRiskMarketID = m.negRiskMarketId;
    w.negRiskRequestID = m.negRiskRequestId;
  }
  if (m.feeType) {
    w.feeType = m.feeType;
    w.feeSchedule = { ...FEE_SCHEDULE };
  }
  if (m.umaStatus) w.umaResolutionStatus = m.umaStatus;
  if (m.closedMs !== undefined) w.closedTime = pgTime(m.closedMs);
  if (m.resolution) {
    w.resolvedBy = '0x65070BE91477460D8A7AeEb94ef92fe056C2f2A7';
    w.umaEndDate = isoDate(m.moves.at(-1)?.t ?? m.endMs);
    if (m.fast) w.automaticallyResolved = true;
  }
  if (m.fast) w.eventStartTime = isoDate(m.startMs);
  return w;
}

export function eventClosed(state: PolymarketState, e: EventRecord): boolean {
  const ms = state.marketsOf(e);
  return ms.length > 0 && ms.every((m) => m.closed);
}

export function eventTotals(state: PolymarketState, e: EventRecord) {
  const ms = state.marketsOf(e);
  const sum = (f: (m: MarketRecord) => number) => clean(ms.reduce((s, m) => s + f(m), 0));
  return {
    volume: sum((m) => m.volume),
    volume24hr: sum((m) => m.volume24hr),
    liquidity: sum((m) => m.liquidity),
  };
}

export function gammaEvent(state: PolymarketState, e: EventRecord): Record<string, unknown> {
  const totals = eventTotals(state, e);
  const closed = eventClosed(state, e);
  const w: Record<string, unknown> = {
    id: e.id,
    ticker: e.slug,
    slug: e.slug,
    title: e.title,
    description: e.description,
    resolutionSource: e.resolutionSource,
    startDate: isoDate(e.startMs),
    creationDate: isoDate(e.createdMs),
    endDate: isoDate(e.endMs),
    image: e.image,
    icon: e.image,
    active: true,
    closed,
    archived: false,
    new: false,
    featured: false,
    restricted: true,
    // Events carry plain numbers here, unlike the string `volume`/`liquidity` on markets.
    liquidity: totals.liquidity,
    volume: totals.volume,
    openInterest: clean(totals.liquidity * 3.1),
    createdAt: isoDate(e.createdMs),
    updatedAt: isoDate(e.createdMs),
    competitive: 0.9,
    volume24hr: totals.volume24hr,
    enableOrderBook: true,
    liquidityClob: totals.liquidity,
    negRisk: e.negRisk,
    commentCount: 0,
    markets: state.marketsOf(e).map((m) => gammaMarket(state, m)),
    tags: e.tags.map((t) => ({ ...t, forceShow: false })),
    cyom: false,
    showAllOutcomes: true,
    showMarketImages: e.negRisk,
    enableNegRisk: e.negRisk,
    automaticallyActive: true,
    negRiskAugmented: false,
    pendingDeployment: false,
    deploying: false,
  };
  if (e.negRisk) w.negRiskMarketID = e.negRiskMarketId;
  if (e.series)
    w.series = [{ ...e.series, ticker: e.series.slug, seriesType: 'single', active: true, closed: false }];
  return w;
}

/** Settlement view of token `index`: price 1/0 (0.5 for 50-50) after resolution, else its mid. */
export function tokenPrice(m: MarketRecord, index: number): number {
  if (m.resolution) return Number(outcomePrices(m)[index]);
  return midpoint(bookOf(m, index)) ?? (index === 0 ? m.price : clean(1 - m.price));
}

export function isWinner(m: MarketRecord, index: number): boolean {
  return (m.resolution === 'yes' && index === 0) || (m.resolution === 'no' && index === 1);
}

/** CLOB `GET /markets/{condition_id}` (snake_case, §3.2). */
export function clobMarket(state: PolymarketState, m: MarketRecord): Record<string, unknown> {
  return {
    enable_order_book: m.enableOrderBook,
    active: m.active,
    closed: m.closed,
    archived: m.archived,
    accepting_orders: m.acceptingOrders,
    accepting_order_timestamp: isoDate(m.createdMs),
    minimum_order_size: m.minSize,
    minimum_tick_size: m.tick,
    condition_id: m.conditionId,
    question_id: m.questionId,
    question: m.question,
    description: m.description,
    market_slug: m.slug,
    end_date_iso: isoDate(m.endMs),
    game_start_time: null,
    seconds_delay: 0,
    fpmm: '',
    maker_base_fee: m.makerBaseFee,
    taker_base_fee: m.takerBaseFee,
    notifications_enabled: true,
    neg_risk: m.negRisk,
    neg_risk_market_id: m.negRiskMarketId,
    neg_risk_request_id: m.negRiskRequestId,
    icon: m.image,
    image: m.image,
    rewards: { rates: null, min_size: 0, max_spread: 0 },
    is_50_50_outcome: m.resolution === '50-50',
    tokens: m.tokenIds.map((token_id, i) => ({
      token_id,
      outcome: m.outcomes[i],
      price: tokenPrice(m, i),
      winner: isWinner(m, i),
    })),
    tags: state.eventOf(m).tags.map((t) => t.label),
  };
}

/** CLOB `GET /clob-markets/{condition_id}` (terse keys, §3.2). */
export function clobMarketInfo(m: MarketRecord): Record<string, unknown> {
  const w: Record<string, unknown> = {
    c: m.conditionId,
    t: m.tokenIds.map((t, i) => ({ t, o: m.outcomes[i] })),
    mts: m.tick,
    mos: m.minSize,
    mbf: m.makerBaseFee,
    tbf: m.takerBaseFee,
    ao: m.acceptingOrders,
    sd: 0,
    rfqe: false,
    itode: false,
    ibce: false,
    r: null,
  };
  if (m.negRisk) w.nr = true; // omitted when false, like the real service
  if (m.feesEnabled) w.fd = { r: FEE_SCHEDULE.rate, e: FEE_SCHEDULE.exponent, to: FEE_SCHEDULE.takerOnly };
  return w;
}
