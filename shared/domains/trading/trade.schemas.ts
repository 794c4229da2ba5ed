import { z } from 'zod';
import { freeFormObject } from '../../util/free-form-object.js';
import { venueEnum } from '../venues/venue-schemas.js';
import { DEFAULT_VENUE } from '../venues/venue-id.js';

export const lower = (v: unknown) => (typeof v === 'string' ? v.trim().toLowerCase() : v);

export const TradeRequestSchema = z
  .object({
    market_id: z.string().trim().min(1).max(200),
    side: z.preprocess(lower, z.enum(['yes', 'no'])),
    action: z.preprocess(lower, z.enum(['buy', 'sell'])).default('buy'),
    amount: z.number().min(0).max(1e9).default(0).meta({ description: 'Spend for buys, 2 decimals.' }),
    shares: z
      .number()
      .min(0)
      .max(1e9)
      .default(0)
      .meta({ description: 'Shares to sell, 5 decimals. Must be 0 or absent on buys.' }),
    venue: z.preprocess(lower, venueEnum('names')).default(DEFAULT_VENUE),
    order_type: z
      .enum(['GTC', 'GTD', 'FOK', 'FAK'])
      .nullish()
      .meta({ description: 'Default FAK for buys, GTC for sells. Sim fills at once.' }),
    price: z.number().min(0.001).max(0.999).nullish().meta({
      description:
        'Limit price of the traded side. On sim: refused unless the average fill is at least this good.',
    }),
    dry_run: z.boolean().default(false),
    idempotency_key: z.string().min(1).max(200).nullish(),
    reasoning: z.string().max(5000).nullish(),
    source: z.string().max(200).nullish(),
    skill_slug: z.string().max(200).nullish(),
    signal_data: freeFormObject().nullish(),
    execute: z.boolean().nullish().meta({
      description: 'Deprecated: true only prepares a Polymarket YES buy (order_params) and trades nothing.',
    }),
    wallet_address: z.string().max(200).nullish(),
    signed_order: freeFormObject().nullish().meta({
      description:
        'Polymarket, external wallet: the V2 CLOB order signed locally (salt, maker, signer, tokenId, makerAmount, takerAmount, side, signatureType, timestamp, metadata, builder, signature).',
    }),
    which_side_to_close: z.enum(['yes', 'no']).nullish(),
  })
  .superRefine((t, ctx) => {
    if (t.action === 'buy') {
      if (t.shares > 0) {
        ctx.addIssue({
          code: 'custom',
          path: ['shares'],
          message: 'shares must be 0 or absent on a buy: buys are sized by amount',
          input: t.shares,
        });
      }
      if (Math.round(t.amount * 100) <= 0) {
        ctx.addIssue({
          code: 'custom',
          path: ['amount'],
          message: 'amount must be at least 0.01 for a buy (2 decimals)',
          input: t.amount,
        });
      }
    } else if (Math.round(t.shares * 1e5) <= 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['shares'],
        message: 'shares must be at least 0.00001 for a sell (5 decimals)',
        input: t.shares,
      });
    }
  })
  .meta({ id: 'TradeRequest' });
export type TradeRequest = z.output<typeof TradeRequestSchema>;

export const GoLiveSchema = z.object({
  reason: z.string(),
  sim_trades: z.number(),
  steps: z.array(
    z.object({
      actor: z.enum(['agent', 'owner']),
      action: z.string(),
      method: z.string().optional(),
      url: z.string().optional(),
      body: z.record(z.string(), z.unknown()).optional(),
    }),
  ),
});

export const TradeResultSchema = z
  .object({
    success: z.boolean(),
    trade_id: z.string().nullable(),
    market_id: z.string(),
    side: z.enum(['yes', 'no']),
    action: z.enum(['buy', 'sell']),
    venue: z.string(),
    shares_bought: z.number(),
    shares_sold: z.number(),
    shares_requested: z.number(),
    order_status: z.string().nullable(),
    fill_status: z.enum(['filled', 'submitted', 'unconfirmed', 'failed']).meta({
      description:
        '`filled`: final. `submitted`: resting or queued (cost 0 until it matches). `unconfirmed`: matched and booked, settling on chain (Polymarket); becomes `filled` once confirmed, or the trade is rolled back and `failed` (`settlement_failed`, a `trade.failed` webhook event) if the chain fails it. `failed`: refused.',
    }),
    order_id: z.string().nullable().meta({
      description:
        'The order as `GET /api/sdk/orders/open` and `DELETE /api/sdk/orders/{order_id}` name it: for an order the service signs (a managed or agent wallet) the `trade_id`; for an external wallet’s order (which the client cancels on the venue itself) the venue’s order id. Null when no venue order was placed.',
    }),
    venue_order_id: z.string().nullable().meta({
      description:
        'The venue’s own order id (on an order-book venue the CLOB order’s hash); null until the order is signed.',
    }),
    cost: z.number().meta({ description: 'Spent on buys, received on sells; 0 when nothing filled.' }),
    new_price: z.number(),
    price_before: z.number(),
    fee_rate_bps: z.number(),
    balance: z.number(),
    position: z.object({ sim_balance: z.number(), shares_yes: z.number(), shares_no: z.number() }),
    error: z.string().nullable(),
    error_code: z.string().nullable(),
    hint: z.string().nullable(),
    error_hint: z.string().nullable(),
    retryable: z.boolean(),
    fix: z
      .string()
      .optional()
      .meta({ description: 'What to do instead, when the request cannot work as sent.' }),
    warnings: z.array(z.string()),
    dry_run: z.boolean(),
    go_live: GoLiveSchema.optional(),
  })
  .meta({ id: 'TradeResult' });
export type TradeResult = z.input<typeof TradeResultSchema>;

/** The legacy `execute: true` answer (client-contract §4.4): an order to place yourself; nothing traded. */
export const PreparedTradeSchema = z
  .object({
    success: z.boolean(),
    market_id: z.string(),
    platform: z.string().nullable(),
    intent_id: z.string().nullable(),
    error: z.string().nullable(),
    order_params: z
      .object({
        token_id: z.string(),
        price: z.number(),
        size: z.number(),
        side: z.enum(['BUY', 'SELL']),
        condition_id: z.string(),
        neg_risk: z.boolean(),
      })
      .nullable(),
  })
  .meta({ id: 'PreparedTrade' });
export type PreparedTrade = z.infer<typeof PreparedTradeSchema>;
