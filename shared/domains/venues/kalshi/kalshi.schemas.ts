import { z } from 'zod';
import { infoNumeric, looseDate, numeric } from '../polymarket/wire-primitives.js';

/**
 * Kalshi Trade API v2 wire shapes (kalshi.md §1.2–§1.4), only the fields the adapter reads. Kalshi
 * renamed its price fields in 2026: today prices are dollar strings (`yes_bid_dollars: "0.4200"`)
 * and counts fixed-point strings (`volume_fp: "1234.00"`); before 2026-03-12 they were integer
 * cents (`yes_bid: 42`) and integer counts. Both wires are accepted and normalised here to the same
 * values, dollars first, so nothing past this module knows which one a payload used. Objects are
 * loose (new fields never break us); a price field of the wrong type fails the call.
 */

/** Dollars as 4-dp numbers: `"0.4200"` → 0.42 and legacy `42` (cents) → 0.42 compare equal. */
const round4 = (x: number) => Number(x.toFixed(4));
const dollarsOr = (dollars: number | null, cents: number | null): number | null =>
  dollars !== null ? round4(dollars) : cents !== null ? round4(cents / 100) : null;
const countOr = (fp: number | null, legacy: number | null): number => fp ?? legacy ?? 0;

const RawMarketSchema = z.looseObject({
  ticker: z.string().min(1),
  event_ticker: z.string().min(1),
  series_ticker: z.string().nullish(),
  market_type: z.string().nullish(),
  title: z.string(),
  subtitle: z.string().nullish(),
  yes_sub_title: z.string().nullish(),
  no_sub_title: z.string().nullish(),
  status: z.string(),
  close_time: looseDate,
  expected_expiration_time: looseDate,
  yes_bid_dollars: infoNumeric,
  yes_ask_dollars: infoNumeric,
  last_price_dollars: infoNumeric,
  yes_bid: infoNumeric,
  yes_ask: infoNumeric,
  last_price: infoNumeric,
  volume_fp: infoNumeric,
  volume_24h_fp: infoNumeric,
  open_interest_fp: infoNumeric,
  volume: infoNumeric,
  volume_24h: infoNumeric,
  open_interest: infoNumeric,
  /** `"yes"`, `"no"`, `"scalar"`, or `""` while unknown. */
  result: z.string().nullish(),
  settlement_value_dollars: infoNumeric,
  settlement_value: infoNumeric,
  settlement_ts: looseDate,
  rules_primary: z.string().nullish(),
  price_level_structure: z.string().nullish(),
});

/** One Kalshi market, whichever wire it came in. Prices in dollars (= YES probability), counts in contracts. */
export const KalshiMarketSchema = RawMarketSchema.transform((m) => ({
  ticker: m.ticker,
  eventTicker: m.event_ticker,
  seriesTicker: m.series_ticker || null,
  marketType: m.market_type || 'binary',
  title: m.title,
  yesSubTitle: m.yes_sub_title || null,
  status: m.status,
  closeTime: m.close_time,
  expectedExpirationTime: m.expected_expiration_time,
  yesBid: dollarsOr(m.yes_bid_dollars, m.yes_bid),
  yesAsk: dollarsOr(m.yes_ask_dollars, m.yes_ask),
  lastPrice: dollarsOr(m.last_price_dollars, m.last_price),
  volume: countOr(m.volume_fp, m.volume),
  volume24h: countOr(m.volume_24h_fp, m.volume_24h),
  openInterest: countOr(m.open_interest_fp, m.open_interest),
  result: m.result ?? '',
  settlementValue: dollarsOr(m.settlement_value_dollars, m.settlement_value),
  settlementTs: m.settlement_ts,
  rulesPrimary: m.rules_primary || null,
  priceLevelStructure: m.price_level_structure || null,
}));
export type KalshiMarket = z.output<typeof KalshiMarketSchema>;

export const KalshiMarketAnswerSchema = z.looseObject({ market: KalshiMarketSchema });
export const KalshiMarketListSchema = z.looseObject({
  markets: z.array(KalshiMarketSchema),
  /** Empty (or absent) on the last page. */
  cursor: z.string().nullish(),
});

export const KalshiEventSchema = z.looseObject({
  event_ticker: z.string().min(1),
  series_ticker: z.string().nullish(),
  title: z.string(),
  sub_title: z.string().nullish(),
  mutually_exclusive: z.boolean().nullish(),
  category: z.string().nullish(),
  /** Only with `with_nested_markets=true`. */
  markets: z.array(KalshiMarketSchema).nullish(),
});
export type KalshiEvent = z.output<typeof KalshiEventSchema>;

/** `GET /events/{e}`: `{event, markets}` (the top-level list is deprecated but still sent). */
export const KalshiEventAnswerSchema = z.looseObject({
  event: KalshiEventSchema,
  markets: z.array(KalshiMarketSchema).nullish(),
});
export const KalshiEventListSchema = z.looseObject({
  events: z.array(KalshiEventSchema),
  cursor: z.string().nullish(),
});

/** `[price, count]`: dollar/count strings today, integer cents/counts on the legacy wire. */
const Level = z.tuple([numeric, numeric]);
const Levels = z.array(Level).nullish();

/**
 * `GET /markets/{t}/orderbook`: bids only, ascending (best last), per side. Current:
 * `orderbook_fp.{yes_dollars,no_dollars}`; transitional: `orderbook.{yes_dollars,no_dollars}`;
 * legacy: `orderbook.{yes,no}` in cents. Normalised to dollar prices and contract counts.
 */
export const KalshiOrderbookSchema = z
  .looseObject({
    orderbook_fp: z.looseObject({ yes_dollars: Levels, no_dollars: Levels }).nullish(),
    orderbook: z.looseObject({ yes: Levels, no: Levels, yes_dollars: Levels, no_dollars: Levels }).nullish(),
  })
  .transform((b) => {
    const inDollars = (levels: [number, number][] | null | undefined) =>
      (levels ?? []).map(([p, n]) => ({ price: round4(p), size: n }));
    const inCents = (levels: [number, number][] | null | undefined) =>
      (levels ?? []).map(([p, n]) => ({ price: round4(p / 100), size: n }));
    if (b.orderbook_fp)
      return { yes: inDollars(b.orderbook_fp.yes_dollars), no: inDollars(b.orderbook_fp.no_dollars) };
    const o = b.orderbook;
    if (o?.yes_dollars || o?.no_dollars)
      return { yes: inDollars(o.yes_dollars), no: inDollars(o.no_dollars) };
    return { yes: inCents(o?.yes), no: inCents(o?.no) };
  });
export type KalshiOrderbook = z.output<typeof KalshiOrderbookSchema>;

/**
 * One trade of the public tape (`GET /markets/trades`, kalshi.md §1.2): today `count_fp` and
 * `yes_price_dollars`/`no_price_dollars` strings, on the legacy wire integer `count` and cent
 * `yes_price`/`no_price`. Every trade is a YES buyer against a NO buyer; `taker_side` is the one
 * that took liquidity. A trade without a YES price or a count fails the call: it cannot be printed.
 */
const RawTradeSchema = z.looseObject({
  trade_id: z.string().min(1),
  ticker: z.string().min(1),
  taker_side: z.enum(['yes', 'no']),
  created_time: z.string().refine((s) => !Number.isNaN(Date.parse(s)), 'an ISO time'),
  count_fp: numeric.nullish(),
  count: numeric.nullish(),
  yes_price_dollars: numeric.nullish(),
  no_price_dollars: numeric.nullish(),
  yes_price: numeric.nullish(),
  no_price: numeric.nullish(),
});

export const KalshiTradeSchema = RawTradeSchema.transform((t, ctx) => {
  const yesPrice = dollarsOr(t.yes_price_dollars ?? null, t.yes_price ?? null);
  const count = t.count_fp ?? t.count ?? null;
  if (yesPrice === null || count === null) {
    ctx.addIssue({ code: 'custom', message: 'a trade needs a YES price and a count' });
    return z.NEVER;
  }
  return {
    tradeId: t.trade_id,
    ticker: t.ticker,
    takerSide: t.taker_side,
    createdSec: Math.floor(Date.parse(t.created_time) / 1000),
    count,
    yesPrice,
    noPrice: dollarsOr(t.no_price_dollars ?? null, t.no_price ?? null) ?? round4(1 - yesPrice),
  };
});
export type KalshiTrade = z.output<typeof KalshiTradeSchema>;

/** `{trades, cursor}`, newest first; the cursor is empty (or absent) on the last page. */
export const KalshiTradesAnswerSchema = z.looseObject({
  trades: z.array(KalshiTradeSchema),
  cursor: z.string().nullish(),
});
