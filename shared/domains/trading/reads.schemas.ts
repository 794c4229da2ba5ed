import { z } from 'zod';
import { normalizeVenue, type VenueId } from '../venues/venue-id.js';
import { venueEnum } from '../venues/venue-schemas.js';

const venueParam = z
  .preprocess((v) => (typeof v === 'string' ? v.trim().toLowerCase() : v), venueEnum('names', ['all']))
  .optional()
  .meta({ description: '`all` (default), `sim`, `polymarket` or `kalshi`; `simmer`/`sandbox` mean `sim`.' });

const boolParam = z.preprocess(
  (v) => (typeof v === 'string' ? ['true', '1', 'yes'].includes(v.toLowerCase()) : v),
  z.boolean(),
);

export const PositionsQuerySchema = z.object({
  venue: venueParam,
  status: z.enum(['active', 'resolved', 'closed', 'settled', 'all']).default('active'),
  source: z
    .string()
    .max(200)
    .optional()
    .meta({ description: 'Partial match on the source tags of the position.' }),
});

export const TradesQuerySchema = z.object({
  venue: venueParam,
  market_id: z.string().max(200).optional(),
  since: z.iso.datetime({ offset: true }).optional(),
  until: z.iso.datetime({ offset: true }).optional(),
  include_failed: boolParam.default(false),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).max(100_000).default(0),
});

export const PortfolioQuerySchema = z.object({ venue: venueParam });

/** `sim` for the legacy aliases, undefined for all venues. */
export function venueFilter(v: string | undefined): VenueId | undefined {
  if (!v || v === 'all') return undefined;
  return normalizeVenue(v)?.venue;
}

/** A venue bucket's numbers (client-contract §6.2), in the venue's currency. */
const BucketSchema = z.object({
  balance: z.number().nullable().meta({
    description:
      'Sim: your $SIM. A real venue: the cash in your owner’s wallet there (null when it could not be read, never a made-up 0).',
  }),
  pnl: z
    .number()
    .meta({ description: 'Realised (sells, settlements) + open positions marked at the venue’s price.' }),
  positions_count: z.number(),
  total_exposure: z.number(),
});

/** What a real venue's bucket shows of the owner's wallet there (trading/wallet-cash.ts bucketCash). */
export const WalletCashFieldsSchema = z.object({
  balance_checked_at: z
    .string()
    .nullable()
    .meta({ description: 'When the balance was read from the chain (ISO).' }),
  balance_stale: z.boolean().meta({
    description: 'True when the chain could not be read now and the last balance read is answered.',
  }),
  wallet_address: z
    .string()
    .nullable()
    .meta({ description: 'The wallet whose cash `balance` is; null without one.' }),
  balance_warning: z.string().nullable(),
});

export const VenueBucketSchema = BucketSchema.extend(WalletCashFieldsSchema.shape).meta({
  id: 'PortfolioVenueBucket',
});

const SourceTotalsSchema = z.object({
  positions: z.number().meta({ description: 'Open positions the source traded.' }),
  exposure: z.number(),
  realized_pnl: z.number().meta({
    description: 'Realised P&L of every position the source traded, closed and settled ones included.',
  }),
  unrealized_pnl: z.number(),
  trade_count: z.number().meta({ description: 'Filled trades placed with this source.' }),
});

/**
 * The one currency of the flat P&L fields (reads.ts moneyScope): $SIM and dollars are never added.
 * A string, not an enum: a play-money venue's positions are in its own unit (venue-conventions.ts).
 */
const PnlCurrencySchema = z.string().meta({
  description:
    'The currency of the flat P&L totals: the asked venue’s (`$SIM` on sim, `USDC` on a real venue, a play-money ' +
    'venue’s own unit); with `venue=all`, `USDC` (the real venues’ dollars, pUSD and USDC 1:1) when you hold or ' +
    'held a position on a real venue, else `$SIM`.',
  examples: ['$SIM', 'USDC'],
});

/** GET /api/sdk/positions (client-contract §6.1): the rows are open-ended, the totals in one currency. */
export const PositionListSchema = z
  .looseObject({
    positions: z.array(z.record(z.string(), z.unknown())),
    total_pnl: z.number().meta({
      description:
        'Realised + marked P&L of the listed positions of the venues `pnl_currency` names (never $SIM added to ' +
        'dollars); each venue’s own is `<venue>_pnl` and `pnl_summary.<venue>`.',
    }),
    total_value: z.number().meta({ description: 'Current value of the same positions, in `pnl_currency`.' }),
    pnl_currency: PnlCurrencySchema,
    pnl_summary: z.looseObject({}).meta({
      description: 'Per venue in its own currency; `combined` over the venues `pnl_currency` names.',
    }),
  })
  .meta({ id: 'PositionList' });

export const PortfolioSchema = z
  .looseObject({
    agent_id: z.string(),
    balance_usdc: z.number().nullable(),
    available_balance: z.number(),
    sim_balance: z.number(),
    sim_pnl: z.number(),
    total_exposure: z.number(),
    positions_count: z.number(),
    redeemable_count: z.number(),
    pnl_24h: z
      .number()
      .meta({ description: 'P&L realised in the last 24 hours, over the venues `pnl_total` counts.' }),
    pnl_total: z.number().meta({
      description:
        'Realised + marked P&L in one currency (`pnl_currency`): the asked venue’s; with `venue=all`, the real venues’ ' +
        '(pUSD and USDC are both dollars, counted 1:1) when you hold or held a position on one, else sim’s. ' +
        '$SIM is never added to dollars: each venue bucket has its own `pnl`, and `sim_pnl` is always sim’s.',
    }),
    pnl_currency: PnlCurrencySchema,
    concentration: z.object({
      top_market_pct: z
        .number()
        .meta({ description: 'The largest position’s share of the exposure, a fraction (0.84 for 84 %).' }),
      top_3_markets_pct: z
        .number()
        .meta({ description: 'The three largest positions’ share of the exposure, a fraction.' }),
    }),
    by_source: z.record(z.string(), SourceTotalsSchema).meta({
      description:
        'Per source tag (`manual` for untagged), over the venues `pnl_total` counts. A position traded by several sources counts under each.',
    }),
    warnings: z.array(z.string()),
    sim: BucketSchema.nullable().optional(),
    polymarket: VenueBucketSchema.nullable().optional(),
    kalshi: VenueBucketSchema.nullable().optional(),
    total: z.object({ positions_count: z.number(), total_exposure: z.number() }),
    combos: z.array(z.unknown()).meta({
      description:
        'Reserved, always empty: the official client places combos (parlays) itself with Polymarket’s combos RFQ service; this service neither relays nor reads them.',
    }),
  })
  .meta({ id: 'Portfolio' });
