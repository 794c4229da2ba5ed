import { z } from 'zod';
import { idString, infoNumeric, numeric } from './wire-primitives.js';

/**
 * CLOB public market-data wire shapes (reference §3): prices and sizes are decimal strings, a few
 * fields plain numbers; `numeric` takes both. Loose objects, strict where a price comes from.
 */

export const ClobLevelSchema = z.looseObject({ price: numeric, size: numeric });

/** `GET /book`, and each element of `POST /books` (§3.1). Level order on the wire is not trusted. */
export const ClobBookSchema = z.looseObject({
  market: z.string().nullish(),
  asset_id: idString,
  timestamp: z.union([z.string(), z.number()]).nullish(),
  bids: z.array(ClobLevelSchema),
  asks: z.array(ClobLevelSchema),
  tick_size: numeric,
  min_order_size: numeric,
  neg_risk: z.boolean().nullish(),
  last_trade_price: infoNumeric,
});
export type ClobBook = z.output<typeof ClobBookSchema>;

export const ClobBookListSchema = z.array(ClobBookSchema);

export const ClobTokenSchema = z.looseObject({
  token_id: idString,
  outcome: z.string(),
  price: numeric,
  winner: z.boolean(),
});

/** `GET /markets/{condition_id}` (§3.2): the CLOB's own view, incl. the winner after resolution. */
export const ClobMarketSchema = z.looseObject({
  condition_id: z.string(),
  question: z.string().nullish(),
  market_slug: z.string().nullish(),
  active: z.boolean().nullish(),
  closed: z.boolean(),
  accepting_orders: z.boolean().nullish(),
  minimum_tick_size: numeric,
  minimum_order_size: numeric,
  neg_risk: z.boolean().nullish(),
  is_50_50_outcome: z.boolean().nullish(),
  tokens: z.array(ClobTokenSchema),
});
export type ClobMarket = z.output<typeof ClobMarketSchema>;
