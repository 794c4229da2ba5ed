import {
  ONE_DOLLAR,
  pipsToDollars,
  type EventRecord,
  type MarketRecord,
  type Pips,
  type WireMode,
} from './model.js';
import type { KalshiTrade } from './public-trades.js';

// Kalshi Trade API v2 JSON (kalshi.md §1.3, §1.4). Current mode: `*_dollars` strings with 4 dp and
// `*_fp` counts with 2 dp; legacy mode: the integer-cent fields Kalshi removed on 2026-03-12
// (`yes_bid`, `last_price`, `volume`, …); `both`: the transitional payload with both.

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const fp = (n: number) => n.toFixed(2);
const cents = (p: Pips) => Math.round(p / 100);

/** An empty side shows bid 0 and ask 1.00 (Kalshi's "no quote"), never null, on the Kalshi wire. */
const bidOrZero = (p: Pips | null) => p ?? 0;
const askOrOne = (p: Pips | null) => p ?? ONE_DOLLAR;

export function emittedStatus(m: MarketRecord): string {
  return m.status === 'finalized' && m.legacySettled ? 'settled' : m.status;
}

export function marketWire(m: MarketRecord): Record<string, unknown> {
  const yesBid = bidOrZero(m.yesBid);
  const yesAsk = askOrOne(m.yesAsk);
  const noBid = m.yesAsk === null ? 0 : ONE_DOLLAR - m.yesAsk;
  const noAsk = m.yesBid === null ? ONE_DOLLAR : ONE_DOLLAR - m.yesBid;
  const out: Record<string, unknown> = {
    ticker: m.ticker,
    event_ticker: m.eventTicker,
    market_type: m.marketType,
    title: m.title,
    subtitle: m.subtitle,
    yes_sub_title: m.yesSubTitle,
    no_sub_title: m.noSubTitle,
    open_time: iso(m.openTime),
    close_time: iso(m.closeTime),
    expected_expiration_time: iso(m.expectedExpirationTime),
    expiration_time: iso(m.latestExpirationTime),
    latest_expiration_time: iso(m.latestExpirationTime),
    settlement_timer_seconds: m.settlementTimerSeconds,
    status: emittedStatus(m),
    can_close_early: m.canCloseEarly,
    result: m.result,
    expiration_value: m.expirationValue,
    rules_primary: m.rulesPrimary,
    rules_secondary: m.rulesSecondary,
    strike_type: m.strikeType,
    ...(m.floorStrike !== null ? { floor_strike: m.floorStrike } : {}),
    ...(m.capStrike !== null ? { cap_strike: m.capStrike } : {}),
    price_level_structure: m.priceLevelStructure,
    price_ranges: [{ start: '0.0000', end: '1.0000', step: '0.0100' }],
    is_provisional: false,
    early_close_condition: '',
    updated_time: iso(m.updatedAt),
  };
  if (m.settlementTs !== null) out.settlement_ts = iso(m.settlementTs);
  if (m.wire !== 'legacy') {
    Object.assign(out, {
      yes_bid_dollars: pipsToDollars(yesBid),
      yes_ask_dollars: pipsToDollars(yesAsk),
      no_bid_dollars: pipsToDollars(noBid),
      no_ask_dollars: pipsToDollars(noAsk),
      yes_bid_size_fp: fp(m.yesBid === null ? 0 : m.depth),
      yes_ask_size_fp: fp(m.yesAsk === null ? 0 : m.depth),
      last_price_dollars: pipsToDollars(m.lastPrice),
      previous_yes_bid_dollars: pipsToDollars(m.previousYesBid),
      previous_yes_ask_dollars: pipsToDollars(m.previousYesAsk),
      previous_price_dollars: pipsToDollars(m.previousPrice),
      volume_fp: fp(m.volume),
      volume_24h_fp: fp(m.volume24h),
      open_interest_fp: fp(m.openInterest),
      notional_value_dollars: '1.0000',
      liquidity_dollars: '0.0000',
      ...(m.settlementValue !== null ? { settlement_value_dollars: pipsToDollars(m.settlementValue) } : {}),
    });
  }
  if (m.wire !== 'current') {
    Object.assign(out, {
      yes_bid: cents(yesBid),
      yes_ask: cents(yesAsk),
      no_bid: cents(noBid),
      no_ask: cents(noAsk),
      last_price: cents(m.lastPrice),
      previous_yes_bid: cents(m.previousYesBid),
      previous_yes_ask: cents(m.previousYesAsk),
      previous_price: cents(m.previousPrice),
      volume: Math.round(m.volume),
      volume_24h: Math.round(m.volume24h),
      open_interest: Math.round(m.openInterest),
      notional_value: 100,
      liquidity: 0,
      ...(m.settlementValue !== null ? { settlement_value: cents(m.settlementValue) } : {}),
    });
  }
  return out;
}

export function eventWire(e: EventRecord, markets: MarketRecord[] | undefined): Record<string, unknown> {
  return {
    event_ticker: e.eventTicker,
    series_ticker: e.seriesTicker,
    title: e.title,
    sub_title: e.subTitle,
    mutually_exclusive: e.mutuallyExclusive,
    collateral_return_type: e.mutuallyExclusive ? 'MECNET' : '',
    category: e.category,
    ...(e.strikeDate !== null ? { strike_date: new Date(e.strikeDate).toISOString() } : {}),
    strike_period: '',
    available_on_brokers: true,
    settlement_sources: [{ name: 'Official source', url: 'https://kalshi.com' }],
    last_updated_ts: new Date(e.updatedAt).toISOString(),
    ...(markets ? { markets: markets.map(marketWire) } : {}),
  };
}

/**
 * Bids only, ascending, best last (kalshi.md §1.4): YES bids from the YES bid down, NO bids from
 * 1 − YES ask down, one cent apart, deeper levels holding more. `depth` ≤ 0 = every level.
 */
export function orderbookLevels(
  m: MarketRecord,
  depth: number,
): { yes: [Pips, number][]; no: [Pips, number][] } {
  const ladder = (best: Pips | null): [Pips, number][] => {
    if (best === null || best <= 0) return [];
    const levels: [Pips, number][] = [];
    for (let i = 0; i < 5 && best - i * 100 > 0; i++) levels.push([best - i * 100, m.depth * (i + 1)]);
    const kept = depth > 0 ? levels.slice(0, depth) : levels;
    return kept.reverse();
  };
  const trading = !['closed', 'determined', 'disputed', 'amended', 'finalized'].includes(m.status);
  return {
    yes: trading ? ladder(m.yesBid) : [],
    no: trading ? ladder(m.yesAsk === null ? null : ONE_DOLLAR - m.yesAsk) : [],
  };
}

export function orderbookWire(m: MarketRecord, depth: number): Record<string, unknown> {
  const { yes, no } = orderbookLevels(m, depth);
  const dollars = (levels: [Pips, number][]) => levels.map(([p, n]) => [pipsToDollars(p), fp(n)]);
  if (m.wire === 'legacy')
    return { orderbook: { yes: yes.map(([p, n]) => [cents(p), n]), no: no.map(([p, n]) => [cents(p), n]) } };
  return { orderbook_fp: { yes_dollars: dollars(yes), no_dollars: dollars(no) } };
}

/**
 * One trade of `GET /markets/trades` in its market's wire mode: `count_fp` and `*_price_dollars`
 * today, integer `count` and cent `yes_price`/`no_price` on the legacy wire. `created_time` is ISO.
 */
export function tradeWire(t: KalshiTrade, wire: WireMode): Record<string, unknown> {
  const noPrice = ONE_DOLLAR - t.yesPrice;
  return {
    trade_id: t.tradeId,
    ticker: t.ticker,
    taker_side: t.takerSide,
    created_time: new Date(t.createdMs).toISOString(),
    ...(wire !== 'legacy'
      ? {
          count_fp: fp(t.count),
          yes_price_dollars: pipsToDollars(t.yesPrice),
          no_price_dollars: pipsToDollars(noPrice),
        }
      : {}),
    ...(wire !== 'current'
      ? { count: Math.round(t.count), yes_price: cents(t.yesPrice), no_price: cents(noPrice) }
      : {}),
  };
}
