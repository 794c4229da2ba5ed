import type { ClobOrder, TradeRecord } from './clob-records.js';
import { priceText, type PlaceResult } from './exchange.js';
import { fromUnits, UNIT } from './wallet-ledger.js';

// Wire shapes of the CLOB's trading endpoints (reference §5.2, §5.3): snake_case, sizes and
// prices as human-unit decimal strings, unix-second timestamps.

const seconds = (ms: number) => Math.floor(ms / 1000);

/** `POST /order` answer. Amounts in human units ("5.7", "10"), empty when nothing matched. */
export function placeResponse(r: PlaceResult) {
  const t = r.trade;
  const buy = r.order.side === 'BUY';
  const shares = t ? fromUnits(t.shares) : '';
  const pusd = t ? fromUnits(t.notional) : '';
  return {
    success: true,
    errorMsg: '',
    orderID: r.order.id,
    status: r.status,
    makingAmount: buy ? pusd : shares,
    takingAmount: buy ? shares : pusd,
    tradeIDs: t ? [t.id] : [],
    transactionsHashes: t ? [t.transactionHash] : [],
  };
}

/** A `POST /orders` item that was refused (the batch answers 200 with one result per order). */
export function refusedResponse(message: string, orderID = '') {
  return {
    success: false,
    errorMsg: message,
    orderID,
    status: '',
    makingAmount: '',
    takingAmount: '',
    tradeIDs: [],
    transactionsHashes: [],
  };
}

/** OpenOrder (`GET /data/order/{id}`, `/data/orders`). */
export function openOrderWire(o: ClobOrder) {
  return {
    id: o.id,
    status: o.status,
    owner: o.ownerKey,
    maker_address: o.maker,
    market: o.conditionId,
    asset_id: o.tokenId,
    side: o.side,
    original_size: fromUnits(o.shares),
    size_matched: fromUnits(o.sizeMatched),
    price: priceText(o),
    associate_trades: [...o.associateTrades],
    outcome: o.outcome,
    created_at: seconds(o.createdMs),
    expiration: String(o.expiration),
    order_type: o.orderType,
  };
}

const bps = (fee: bigint, notional: bigint) => (notional > 0n ? String((fee * 10_000n) / notional) : '0');

/** Trade (`GET /data/trades`), seen by the user `viewer` (taker or one of the makers). */
export function tradeWire(t: TradeRecord, viewer: string) {
  return {
    id: t.id,
    taker_order_id: t.takerOrderId,
    market: t.conditionId,
    asset_id: t.tokenId,
    side: t.side,
    size: fromUnits(t.shares),
    fee_rate_bps: bps(t.fee, t.notional),
    price: fromUnits(t.shares > 0n ? (t.notional * UNIT) / t.shares : 0n),
    status: t.status,
    match_time: String(seconds(t.matchMs)),
    last_update: String(seconds(t.updatedMs)),
    outcome: t.outcome,
    bucket_index: 0,
    owner: t.takerOwnerKey,
    maker_address: t.takerMaker,
    transaction_hash: t.transactionHash,
    trader_side: t.takerOwnerAddress === viewer ? 'TAKER' : 'MAKER',
    maker_orders: t.makers.map((m) => ({
      order_id: m.orderId,
      owner: m.ownerKey,
      maker_address: m.makerAddress,
      matched_amount: fromUnits(m.shares),
      price: fromUnits(m.priceMicro),
      fee_rate_bps: '0',
      asset_id: t.tokenId,
      outcome: t.outcome,
      side: m.side,
    })),
  };
}

/** Cursor pages: the cursor is base64 of the offset; `MA==` = start, `LTE=` = no more. */
export function page<T>(rows: T[], cursor: string | undefined, size: number) {
  const start =
    cursor === undefined || cursor === '' ? 0 : Number(Buffer.from(cursor, 'base64').toString('utf8'));
  if (cursor === 'LTE=') return { data: [] as T[], next_cursor: 'LTE=', limit: size, count: 0 };
  if (!Number.isInteger(start) || start < 0) return undefined;
  const data = rows.slice(start, start + size);
  const next = start + size >= rows.length ? 'LTE=' : Buffer.from(String(start + size)).toString('base64');
  return { data, next_cursor: next, limit: size, count: data.length };
}
