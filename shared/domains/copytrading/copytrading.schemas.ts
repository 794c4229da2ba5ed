import { z } from 'zod';
import { lower } from '../trading/trade.schemas.js';
import { venueEnum } from '../venues/venue-schemas.js';
import { DEFAULT_VENUE } from '../venues/venue-id.js';

/** Wallets one plan may copy: each is a read of the venue's public API (cached, but one each). */
export const MAX_COPIED_WALLETS = 20;
/** Trades one plan may hold, whatever `max_trades` says. */
export const MAX_PLAN_TRADES = 200;

const wallet = z
  .string()
  .trim()
  .regex(/^0x[0-9a-fA-F]{40}$/, 'an EVM address: 0x followed by 40 hex digits');

export const CopytradingRequestSchema = z
  .object({
    wallets: z
      .array(wallet)
      .min(1)
      .max(MAX_COPIED_WALLETS)
      .meta({ description: `The wallets to copy (public positions), 1 to ${MAX_COPIED_WALLETS}.` }),
    max_usd_per_position: z.number().min(1).max(1_000_000).default(50).meta({
      description: 'The size of the largest copied position; smaller ones are scaled down from it.',
    }),
    dry_run: z.boolean().default(true),
    buy_only: z.boolean().default(true).meta({
      description: 'Buys only: no rebalancing sales (whale exits still sell when detect_whale_exits).',
    }),
    detect_whale_exits: z.boolean().default(true).meta({
      description:
        'Sell the copies of markets none of the wallets holds any more (positions bought by copytrading trades naming one of them).',
    }),
    top_n: z
      .number()
      .int()
      .min(1)
      .max(100)
      .nullish()
      .meta({ description: 'Markets to copy, by conviction; absent: from the balance (5, 10, 25 or 50).' }),
    max_trades: z.number().int().min(1).max(MAX_PLAN_TRADES).nullish(),
    venue: z.preprocess(lower, venueEnum('names')).default(DEFAULT_VENUE),
    market_ids: z
      .array(z.string().trim().min(1).max(200))
      .max(500)
      .nullish()
      .meta({ description: 'Copy only these markets (this service’s ids).' }),
  })
  .meta({ id: 'CopytradingRequest' });
export type CopytradingRequest = z.output<typeof CopytradingRequestSchema>;

export const CopytradingTradeSchema = z.object({
  market_id: z.string(),
  market_title: z.string(),
  action: z.enum(['buy', 'sell']),
  side: z.enum(['yes', 'no']),
  shares: z.number(),
  estimated_price: z.number(),
  estimated_cost: z.number().meta({ description: 'A buy’s spend (send it as `amount`); a sale’s proceeds.' }),
  whale_wallet: z.string(),
  source_wallet: z.string(),
  edge: z.number().meta({ description: 'The market’s share of everything the wallets agree on.' }),
  confidence: z.number().meta({ description: 'Conviction against the plan’s strongest market, in (0, 1].' }),
  whale_position_usd: z.number(),
  reason: z.enum(['copy', 'rebalance', 'opposite_side', 'whale_exit']),
  success: z.boolean().optional(),
  trade_id: z.string().nullable().optional(),
  error: z.string().nullable().optional(),
  error_code: z.string().nullable().optional(),
});
export type CopytradingTrade = z.infer<typeof CopytradingTradeSchema>;

export const CopytradingResultSchema = z
  .object({
    success: z.boolean(),
    dry_run: z.boolean(),
    venue: z.string(),
    wallets_analyzed: z.number(),
    positions_found: z.number(),
    conflicts_skipped: z.number(),
    top_n_used: z.number(),
    whale_exits_detected: z.number(),
    trades_needed: z.number(),
    trades_executed: z.number().optional(),
    errors: z.array(z.string()),
    summary: z.string(),
    trades: z.array(CopytradingTradeSchema),
  })
  .meta({ id: 'CopytradingResult' });
export type CopytradingResult = z.infer<typeof CopytradingResultSchema>;
