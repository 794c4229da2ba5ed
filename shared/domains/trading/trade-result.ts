import { fromMicro } from '../money.js';
import type { MarketEventRecord } from '../markets/market-event.model.js';
import type { MarketRecord } from '../markets/market.model.js';
import type { Refusal } from '../refusal.js';
import type { ExecutableQuote } from '../venues/venue-adapter.js';
import { sidePrice } from '../side-price.js';
import type { TradeResult } from './trade.schemas.js';
import type { TradeRecord, VenueOrder } from './trade.model.js';

/** Prices are shown to 6 decimals. */
const px = (p: number) => Math.round(p * 1e6) / 1e6;

/** What every answer needs to know about the trade, whether it was persisted (live) or not (dry run). */
export interface TradeShape {
  id: string | null;
  marketId: string;
  venue: string;
  side: 'yes' | 'no';
  action: 'buy' | 'sell';
  amountMicro: number;
  sharesMicro: number;
  warnings: string[];
}

/** The shape of a recorded trade. */
export const shapeOf = (t: TradeRecord): TradeShape => ({
  id: t._id,
  marketId: t.marketId,
  venue: t.venue,
  side: t.side,
  action: t.action,
  amountMicro: t.amountMicro,
  sharesMicro: t.sharesMicro,
  warnings: t.warnings,
});

export interface Holdings {
  balanceMicro: number;
  sharesYesMicro: number;
  sharesNoMicro: number;
}

function base(t: TradeShape, market: Pick<MarketRecord, 'feeRateBps'>, holdings: Holdings, dryRun: boolean) {
  return {
    trade_id: t.id,
    market_id: t.marketId,
    side: t.side,
    action: t.action,
    venue: t.venue,
    order_id: null,
    venue_order_id: null,
    fee_rate_bps: market.feeRateBps,
    balance: fromMicro(holdings.balanceMicro),
    position: {
      sim_balance: fromMicro(holdings.balanceMicro),
      shares_yes: fromMicro(holdings.sharesYesMicro),
      shares_no: fromMicro(holdings.sharesNoMicro),
    },
    warnings: t.warnings,
    dry_run: dryRun,
  };
}

export function filledResult(
  t: TradeShape,
  market: MarketRecord,
  fill: Pick<MarketEventRecord, 'sharesMicro' | 'amountMicro' | 'priceBefore' | 'priceAfter'>,
  holdings: Holdings,
  opts: { dryRun: boolean; goLive?: TradeResult['go_live'] },
): TradeResult {
  const shares = fromMicro(fill.sharesMicro);
  const result: TradeResult = {
    success: true,
    ...base(t, market, holdings, opts.dryRun),
    shares_bought: t.action === 'buy' ? shares : 0,
    shares_sold: t.action === 'sell' ? shares : 0,
    // A buy asks for "whatever the amount buys": what it bought is what it asked for.
    shares_requested: t.action === 'buy' ? shares : fromMicro(t.sharesMicro),
    order_status: 'matched',
    fill_status: 'filled',
    cost: fromMicro(fill.amountMicro),
    new_price: px(sidePrice(fill.priceAfter ?? market.currentPrice, t.side)),
    price_before: px(sidePrice(fill.priceBefore ?? market.currentPrice, t.side)),
    error: null,
    error_code: null,
    hint: null,
    error_hint: null,
    retryable: false,
  };
  if (opts.goLive) result.go_live = opts.goLive;
  return result;
}

/** A trade on a market id this service does not know. */
export const MARKET_NOT_FOUND: Refusal = {
  error: 'Market not found.',
  errorCode: 'market_not_found',
  retryable: false,
  hint: 'Use the service market_id (a UUID) from GET /api/sdk/markets.',
  category: 'market',
};

/** No market row: a refusal that still has the full answer shape (numbers never null). */
export const NO_MARKET = { feeRateBps: 0, currentPrice: 0 } as MarketRecord;

export function refusedResult(
  t: TradeShape,
  market: MarketRecord,
  refusal: Refusal,
  holdings: Holdings,
  dryRun: boolean,
): TradeResult {
  const current = px(sidePrice(market.currentPrice, t.side));
  return {
    success: false,
    ...base(t, market, holdings, dryRun),
    shares_bought: 0,
    shares_sold: 0,
    shares_requested: t.action === 'sell' ? fromMicro(t.sharesMicro) : 0,
    order_status: null,
    fill_status: 'failed',
    cost: 0,
    new_price: current,
    price_before: current,
    error: refusal.error,
    error_code: refusal.errorCode,
    hint: refusal.hint ?? null,
    error_hint: refusal.hint ?? null,
    retryable: refusal.retryable,
  };
}

/** The deadline passed before the worker finished: the trade carries on and shows in GET /api/sdk/trades. */
export function submittedResult(t: TradeShape, market: MarketRecord, holdings: Holdings): TradeResult {
  const current = px(sidePrice(market.currentPrice, t.side));
  return {
    success: true,
    ...base(t, market, holdings, false),
    shares_bought: 0,
    shares_sold: 0,
    shares_requested: t.action === 'sell' ? fromMicro(t.sharesMicro) : 0,
    order_status: 'delayed',
    fill_status: 'submitted',
    cost: 0,
    new_price: current,
    price_before: current,
    error: null,
    error_code: null,
    hint: `The trade is queued and will execute shortly; see GET /api/sdk/trades?market_id=${t.marketId} for its outcome.`,
    error_hint: null,
    retryable: false,
  };
}

/** Where a real-venue order stands: what matched so far and the venue's word on the rest. */
export interface VenueOrderOutcome {
  sharesMicro: number;
  amountMicro: number;
  /** The traded outcome's price: the average fill, or the order's limit when nothing matched. */
  price: number;
  orderStatus: 'matched' | 'live' | 'delayed';
  fillStatus: 'filled' | 'submitted' | 'unconfirmed';
  orderId: string | null;
  /** Who signed the order (the trade's `venueOrder.signer`); absent when none was placed (a dry run). */
  signer?: VenueOrder['signer'];
}

/**
 * How answers name a venue order (the trade answer, the open-order rows, the cancel answer).
 * An order the service signs (managed or agent wallet) is named by its trade id: the client keeps
 * `trade_id` and cancels through DELETE /api/sdk/orders/{id}, which takes it. An external wallet's
 * order keeps the venue's id, by which the client cancels it on the venue itself. `venue_order_id`
 * is always the venue's id (null until the order is signed).
 */
export function answeredOrderIds(
  tradeId: string | null,
  venueOrderId: string | null,
  signer?: VenueOrder['signer'],
): { order_id: string | null; venue_order_id: string | null } {
  const serviceSigned = signer !== undefined && signer !== 'external';
  return { order_id: serviceSigned ? tradeId : venueOrderId, venue_order_id: venueOrderId };
}

/**
 * A real-venue order's answer (client-contract §4.2): `success` with what matched (`filled`), or
 * resting/queued (`submitted`, cost 0 until it matches), or matched but settling (`unconfirmed`).
 */
export function venueOrderResult(
  t: TradeShape,
  market: MarketRecord,
  o: VenueOrderOutcome,
  holdings: Holdings,
  dryRun: boolean,
): TradeResult {
  const shares = fromMicro(o.sharesMicro);
  return {
    success: true,
    ...base(t, market, holdings, dryRun),
    ...answeredOrderIds(t.id, o.orderId, o.signer),
    shares_bought: t.action === 'buy' ? shares : 0,
    shares_sold: t.action === 'sell' ? shares : 0,
    shares_requested: t.action === 'buy' ? shares : fromMicro(t.sharesMicro),
    order_status: o.orderStatus,
    fill_status: o.fillStatus,
    cost: fromMicro(o.amountMicro),
    new_price: px(o.price),
    price_before: px(sidePrice(market.currentPrice, t.side)),
    error: null,
    error_code: null,
    hint: null,
    error_hint: null,
    retryable: false,
  };
}

/** A dry run on a venue's book: what its executable quote fills now, nothing sent (`quote` has shares). */
export const bookQuoteResult = (
  t: TradeShape,
  market: MarketRecord,
  quote: ExecutableQuote,
  holdings: Holdings,
) =>
  venueOrderResult(
    t,
    market,
    {
      sharesMicro: Math.round(quote.shares * 1e6),
      amountMicro: Math.round(quote.amount * 1e6),
      price: quote.avgPrice,
      orderStatus: 'matched',
      fillStatus: quote.filled ? 'filled' : 'submitted',
      orderId: null,
    },
    holdings,
    true,
  );
