import { z } from 'zod';
import { infoNumeric, numeric } from '../wire-primitives.js';

/** CLOB trading answers (polymarket.md §5.2–5.3). Loose objects: unknown fields are kept, not refused. */

/** `POST /order`: `makingAmount`/`takingAmount` are decimal strings, `""` when nothing matched. */
export const PostOrderAnswerSchema = z.looseObject({
  success: z.boolean().nullish(),
  errorMsg: z.string().nullish(),
  orderID: z.string().nullish(),
  status: z.string().nullish(),
  makingAmount: infoNumeric,
  takingAmount: infoNumeric,
  tradeIDs: z.array(z.string()).nullish(),
  transactionsHashes: z.array(z.string()).nullish(),
});
export type PostOrderAnswer = z.output<typeof PostOrderAnswerSchema>;

/** `GET /data/order/{id}`. */
export const OpenOrderSchema = z.looseObject({
  id: z.string(),
  status: z.string(),
  owner: z.string().nullish(),
  maker_address: z.string().nullish(),
  market: z.string().nullish(),
  asset_id: z.string(),
  side: z.string(),
  original_size: numeric,
  size_matched: numeric,
  price: numeric,
  associate_trades: z.array(z.string()).nullish(),
  order_type: z.string().nullish(),
  created_at: z.union([z.string(), z.number()]).nullish(),
});
export type OpenOrder = z.output<typeof OpenOrderSchema>;

export const ClobTradeSchema = z.looseObject({
  id: z.string(),
  taker_order_id: z.string().nullish(),
  market: z.string().nullish(),
  asset_id: z.string(),
  side: z.string(),
  size: numeric,
  price: numeric,
  status: z.string(),
  transaction_hash: z.string().nullish(),
  trader_side: z.string().nullish(),
  maker_orders: z
    .array(z.looseObject({ order_id: z.string(), matched_amount: numeric, price: numeric }))
    .nullish(),
});
export type ClobTrade = z.output<typeof ClobTradeSchema>;

export const TradesPageSchema = z.looseObject({
  data: z.array(ClobTradeSchema),
  next_cursor: z.string().nullish(),
});

export const CancelAnswerSchema = z.looseObject({
  canceled: z.array(z.string()).default([]),
  not_canceled: z.record(z.string(), z.string()).nullish(),
});
export type CancelAnswer = z.output<typeof CancelAnswerSchema>;
