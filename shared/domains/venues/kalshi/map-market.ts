import { quoteFromTop } from '../top-of-book.js';
import type {
  OutcomeBook,
  VenueMarket,
  VenueMarketStatus,
  VenueQuote,
  VenueResolution,
} from '../venue-adapter.js';
import type { KalshiEvent, KalshiMarket, KalshiOrderbook } from './kalshi.schemas.js';
import { kalshiMarketUrl } from './kalshi-urls.js';

/**
 * Kalshi markets → the venue-neutral types. Pure functions: the status vocabulary (§1.5), the
 * "bid 0 / ask 1 is no quote" rule (§1.3), the bids-only book (§1.4) and the resolution rule (§4)
 * are settled here once.
 */

/** Statuses in which the market still trades or may (again): initialized, active, paused. */
const NOT_CLOSED = new Set(['initialized', 'active', 'inactive']);
/** Statuses past trading: awaiting, provisional or final results. `settled` is the v3 SDKs' `finalized`. */
const PAST_TRADING = new Set(['closed', 'determined', 'disputed', 'amended', 'finalized', 'settled']);
const FINAL = new Set(['finalized', 'settled']);

export const UNSUPPORTED_SCALAR =
  'Scalar Kalshi markets are not supported: positions here pay 1 or 0 per share, a scalar market pays a fraction';

/** A quoted side: Kalshi shows an empty side as bid 0 and ask 1.00 (or null), which is no price. */
const bidOrNull = (p: number | null) => (p !== null && p > 0 && p < 1 ? p : null);
const askOrNull = (p: number | null) => (p !== null && p > 0 && p < 1 ? p : null);

/** YES top of book from the market object: the mid of a two-sided book, else the last trade, else none. */
export function kalshiQuote(m: KalshiMarket): VenueQuote | null {
  if (!NOT_CLOSED.has(m.status)) return null;
  return quoteFromTop(bidOrNull(m.yesBid), askOrNull(m.yesAsk), m.lastPrice);
}

/**
 * Final only when the status is `finalized` (older payloads: `settled`) with a result (§4):
 * `yes`/`no` pay 1/0 per YES contract; `scalar` pays `settlement_value_dollars` per YES contract
 * (outcome null, a fractional payout). `determined`/`amended` results can still change: not final.
 */
export function kalshiResolution(m: KalshiMarket): VenueResolution | null {
  if (!FINAL.has(m.status)) return null;
  const resolvedAt = m.settlementTs;
  if (m.result === 'yes') return { outcome: true, payoutYes: 1, resolvedAt };
  if (m.result === 'no') return { outcome: false, payoutYes: 0, resolvedAt };
  if (m.result === 'scalar' && m.settlementValue !== null)
    return { outcome: null, payoutYes: m.settlementValue, resolvedAt };
  return null;
}

/** Open / closed / resolved as the sync job needs it. Only `active` takes orders (§1.5). */
export function kalshiStatus(m: KalshiMarket): VenueMarketStatus {
  return {
    closed: PAST_TRADING.has(m.status),
    acceptingOrders: m.status === 'active',
    resolution: kalshiResolution(m),
  };
}

/** `deci_cent` and `tapered_deci_cent` trade in $0.001 steps, `linear_cent` in $0.01. */
const tickOf = (m: KalshiMarket) => (m.priceLevelStructure?.includes('deci_cent') ? 0.001 : 0.01);

/**
 * Kalshi market → VenueMarket. The display question is `title — yes_sub_title` (siblings of a
 * bracket event share the title and differ by the subtitle, §1.3). Counts are contracts of $1
 * notional, so volumes are read as USD; open interest stands in for liquidity (`liquidity_dollars`
 * is always 0). `event` adds the event's title and category when the caller has it.
 */
export function mapKalshiMarket(m: KalshiMarket, event?: KalshiEvent | null): VenueMarket {
  const status = kalshiStatus(m);
  const quote = kalshiQuote(m);
  const category = event?.category || null;
  return {
    venue: 'kalshi',
    externalId: m.ticker.toUpperCase(),
    yesTokenId: null,
    noTokenId: null,
    question: m.yesSubTitle && !m.title.includes(m.yesSubTitle) ? `${m.title} — ${m.yesSubTitle}` : m.title,
    description: m.rulesPrimary,
    url: kalshiMarketUrl(m.eventTicker, m.ticker),
    slug: m.ticker.toUpperCase(),
    eventId: m.eventTicker.toUpperCase(),
    eventSlug: m.eventTicker.toUpperCase(),
    eventName: event?.title ?? null,
    outcomeName: m.yesSubTitle,
    outcomes: ['Yes', 'No'],
    yesPrice: quote?.yesPrice ?? null,
    bestBid: quote?.bestBid ?? null,
    bestAsk: quote?.bestAsk ?? null,
    tickSize: tickOf(m),
    minOrderSize: 1,
    negRisk: false,
    feeRateBps: 0,
    volume24h: m.volume24h,
    volumeTotal: m.volume,
    liquidity: m.openInterest,
    endDate: m.closeTime,
    tags: category ? [category] : [],
    category,
    closed: status.closed,
    acceptingOrders: status.acceptingOrders,
    resolution: status.resolution,
    unsupported: m.marketType === 'scalar' ? UNSUPPORTED_SCALAR : null,
  };
}

/**
 * A Kalshi book (bids only per side, ascending) → one outcome's book, best first. A NO bid at p is
 * a YES offer at 1 − p, so each side's asks are the other side's bids mirrored (§1.4).
 */
export function kalshiOutcomeBook(b: KalshiOrderbook, outcome: 'yes' | 'no', tickSize: number): OutcomeBook {
  const own = outcome === 'yes' ? b.yes : b.no;
  const other = outcome === 'yes' ? b.no : b.yes;
  const live = (l: { price: number; size: number }) => l.size > 0 && l.price > 0 && l.price < 1;
  return {
    bids: own.filter(live).sort((x, y) => y.price - x.price),
    asks: other
      .filter(live)
      .map((l) => ({ price: Number((1 - l.price).toFixed(4)), size: l.size }))
      .sort((x, y) => x.price - y.price),
    tickSize,
    minOrderSize: 1,
  };
}
