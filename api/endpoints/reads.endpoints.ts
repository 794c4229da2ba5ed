import { z } from 'zod';
import { WalletCashFieldsSchema } from '../../shared/domains/trading/reads.schemas.js';
import { venueEnum } from '../../shared/domains/venues/venue-schemas.js';
import { endpoint } from './endpoint.js';
import { MarketIdParamsSchema } from './markets.endpoints.js';

const PositionObject = z
  .looseObject({
    has_position: z.boolean(),
    side: z.string().nullable(),
    shares: z.number(),
    avg_cost_basis: z.number().nullable(),
    current_value: z.number(),
    unrealized_pnl: z.number(),
    pnl_pct: z
      .number()
      .meta({ description: 'Unrealised P&L over the cost basis, a fraction (0.12 for +12 %).' }),
    position_age_hours: z.number().nullable(),
  })
  .meta({ id: 'ContextPosition' });

export const ContextQuerySchema = z.object({
  my_probability: z.coerce
    .number()
    .min(0, 'my_probability is a probability between 0 and 1')
    .max(1, 'my_probability is a probability between 0 and 1')
    .optional(),
  venue: z
    .preprocess((v) => (typeof v === 'string' ? v.toLowerCase() : v), venueEnum('ids', ['all']))
    .default('all'),
});

/** A position the briefing asks the agent to look at (a big move, resolving soon, resolved). */
const AttentionItem = z.object({
  market_id: z.string(),
  question: z.string(),
  url: z.string(),
  side: z.string().meta({ description: '`yes` or `no`.' }),
  shares: z.number(),
  current_price: z.number(),
  pnl: z.number(),
  move_pct: z.number().meta({ description: 'Price move since `since`, in points of percent.' }),
  time_to_resolution: z.string().nullable(),
  reasons: z.array(z.string()).meta({ description: '`big_move`, `resolving_soon`, `resolved`.' }),
});

const BriefingVenueBase = {
  currency: z.string(),
  pnl: z.number().meta({ description: 'Realised + open positions marked at the venue’s price.' }),
  realized_pnl: z.number(),
  unrealized_pnl: z.number(),
  positions_count: z.number().int(),
  positions_needing_attention: z.array(AttentionItem),
  actions: z.array(z.string()),
};

const SimBriefingVenue = z
  .looseObject({
    ...BriefingVenueBase,
    balance: z.number(),
    cash_balance: z.number(),
    portfolio_value: z.number().meta({ description: 'Cash + open positions at current prices.' }),
    by_skill: z
      .record(
        z.string(),
        z.object({
          positions: z.number().meta({ description: 'Open positions the skill traded.' }),
          exposure: z.number(),
          pnl: z.number().meta({ description: '`realized_pnl` + `unrealized_pnl`, $SIM.' }),
          realized_pnl: z.number(),
          unrealized_pnl: z.number(),
          trade_count: z.number().meta({ description: 'Filled sim trades naming the skill.' }),
        }),
      )
      .meta({
        description:
          'Per skill slug your sim trades named (`skill_slug`): the positions it traded and their P&L. A position traded by several skills counts under each.',
      }),
  })
  .meta({ id: 'BriefingSimVenue' });

/** A real venue's block: its positions, and the cash in the owner's wallet there (as the portfolio). */
const RealBriefingVenue = z
  .looseObject({
    ...BriefingVenueBase,
    balance: z.number().nullable().meta({
      description:
        'The cash in your owner’s wallet there, read from the chain (null when it cannot be read; 0 without a wallet).',
    }),
    total_exposure: z.number(),
    ...WalletCashFieldsSchema.shape,
  })
  .meta({ id: 'BriefingRealVenue' });

export const readEndpoints = {
  walletPositions: endpoint({
    method: 'get',
    path: '/api/sdk/wallet/{wallet_address}/positions',
    auth: 'agent',
    tag: 'Reads',
    summary: "Any Polymarket wallet's positions (Data API), cached 30 s per wallet",
    description: '60 requests per minute per agent. `market_id` is set where the market is imported here.',
    params: z.object({
      wallet_address: z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'an EVM address: 0x followed by 40 hex digits'),
    }),
    response: z
      .object({
        wallet_address: z.string(),
        position_count: z.number(),
        positions: z.array(
          z.looseObject({
            market_title: z.string(),
            condition_id: z.string(),
            token_id: z.string(),
            side: z.string(),
            market_slug: z.string(),
            shares: z.number(),
            current_price: z.number(),
            current_value: z.number(),
          }),
        ),
        total_value: z.number(),
      })
      .meta({ id: 'WalletPositions' }),
    errors: [503],
    rateLimit: 'wallet-positions',
  }),
  context: endpoint({
    method: 'get',
    path: '/api/sdk/context/{market_id}',
    auth: 'agent',
    freshAgent: true,
    tag: 'Reads',
    summary: 'Everything to check before trading one market: prices, position, discipline, slippage, edge',
    description:
      '300 requests per minute per agent. `market.ai_consensus` is reserved and always null: this service runs no AI forecasters of its own ' +
      '(the agents’ collective view is the sim price, `current_price`, and its gap to the venue’s price is `divergence`). ' +
      '`spread` / `spread_cents`: the venue’s quoted spread on imported markets, 0 on sim markets (one LMSR price; its cost is the price impact under `slippage`).',
    params: MarketIdParamsSchema,
    query: ContextQuerySchema,
    response: z
      .looseObject({
        market: z.looseObject({
          id: z.string(),
          question: z.string(),
          current_price: z.number(),
          status: z.string(),
        }),
        position: PositionObject,
        positions: z.object({
          sim: PositionObject.nullable(),
          polymarket: PositionObject.nullable(),
          kalshi: PositionObject.nullable(),
        }),
        discipline: z.looseObject({
          direction_changes_24h: z.number(),
          warning_level: z.enum(['none', 'mild', 'severe']),
        }),
        slippage: z.looseObject({
          venue: z.string(),
          spread_pct: z.number(),
          estimates: z.array(
            z.looseObject({
              side: z.string(),
              amount_usd: z.number(),
              avg_price: z.number(),
              slippage_pct: z.number().meta({
                description:
                  'The average price over the price before, less 1: a fraction (0.0117 for 1.17 %).',
              }),
            }),
          ),
        }),
        edge: z.looseObject({
          suggested_threshold: z.number(),
          base_threshold: z.number(),
          time_factor: z.number(),
          recommendation: z.enum(['TRADE', 'HOLD', 'SKIP']).meta({
            description:
              '`TRADE`: the edge on `my_probability` reaches `suggested_threshold`; `HOLD`: no `my_probability`, or a smaller edge; ' +
              '`SKIP`: only for a market that must not be traded (resolved, closed, or not tradeable on the venue asked).',
          }),
        }),
        recent_trades: z.array(z.record(z.string(), z.unknown())),
        warnings: z.array(z.string()),
      })
      .meta({ id: 'MarketContext' }),
    errors: [404, 429],
    rateLimit: 'context',
  }),
  briefing: endpoint({
    method: 'get',
    path: '/api/sdk/briefing',
    auth: 'agent',
    freshAgent: true,
    tag: 'Reads',
    summary:
      'One-call briefing: balances and P&L per venue, positions needing attention, actions, opportunities, performance, risk',
    query: z.object({
      since: z.iso
        .datetime({ offset: true })
        .optional()
        .meta({ description: 'ISO timestamp; default 24 hours ago.' }),
      skill_versions: z.string().max(5000).optional().meta({
        description:
          'JSON object {slug: version} sent by the Python SDK: the skills it runs. Each approved skill the catalogue lists with a later version (dotted numbers, compared part by part) comes back in `skill_updates`.',
      }),
    }),
    response: z
      .looseObject({
        venues: z.object({
          sim: SimBriefingVenue,
          polymarket: RealBriefingVenue.nullable(),
          kalshi: RealBriefingVenue.nullable(),
        }),
        opportunities: z.looseObject({
          new_markets: z.array(z.record(z.string(), z.unknown())),
          recommended_skills: z.array(z.unknown()),
        }),
        performance: z.looseObject({ total_pnl: z.number(), pnl_percent: z.number() }),
        risk_alerts: z.array(z.unknown()),
        triggered_risk_alerts: z.array(z.unknown()),
        risk_warnings: z.array(z.string()),
        sdk_update: z.record(z.string(), z.unknown()),
        skill_updates: z
          .array(
            z.object({
              slug: z.string(),
              current: z.string().meta({ description: 'The version you run (from `skill_versions`).' }),
              latest: z.string().meta({ description: 'The catalogue’s version (GET /api/sdk/skills).' }),
              install: z.string(),
            }),
          )
          .meta({ description: 'Skills you run with a later version in the catalogue.' }),
        checked_at: z.string(),
      })
      .meta({ id: 'Briefing' }),
  }),
  outcomes: endpoint({
    method: 'get',
    path: '/api/sdk/outcomes',
    auth: 'agent',
    tag: 'Reads',
    summary: 'Outcomes of one skill: trades, P&L, wins and losses of the positions its trades opened',
    description:
      '`trades` counts the agent’s filled trades carrying `skill_slug` = `skill`. A position (market, venue) belongs to the skill whose `skill_slug` was on the buy that opened it (its first filled buy), so each position counts for one skill only. ' +
      '`pnl` = realised P&L of those positions (sells and settlements, from the ledger) + open shares marked at the venue’s price. ' +
      'A position is decided once closed (sold out) or settled: a win when its realised P&L is positive, otherwise a loss; `settled_*` count the settled ones only. ' +
      '`confidence_breakdown`: decided by market resolution (`settlement`), by fills on the sim book (`native`), by fills on a real venue (`mirror`). ' +
      '`since` keeps the trades made, and the positions opened, from then on.',
    query: z.object({
      skill: z.string().trim().min(1, 'skill is the skill slug (query ?skill=<slug>)').max(200),
      since: z.iso
        .datetime({ offset: true })
        .optional()
        .meta({ description: 'ISO timestamp; default all time.' }),
    }),
    response: z
      .looseObject({
        skill: z.string(),
        trades: z.number(),
        pnl: z.number(),
        wins: z.number(),
        losses: z.number(),
        settled_pnl: z.number(),
        resolved_markets: z.number(),
        settled_wins: z.number(),
        settled_losses: z.number(),
        confidence_breakdown: z.object({ settlement: z.number(), native: z.number(), mirror: z.number() }),
      })
      .meta({ id: 'SkillOutcomes' }),
  }),
  expiringPositions: endpoint({
    method: 'get',
    path: '/api/sdk/positions/expiring',
    auth: 'agent',
    freshAgent: true,
    tag: 'Reads',
    summary: 'Open positions in markets resolving within `hours` (1–168, default 24), soonest first',
    query: z.object({
      hours: z.coerce.number().int().min(1, 'hours is 1 to 168').max(168, 'hours is 1 to 168').default(24),
    }),
    response: z
      .looseObject({
        positions: z.array(z.record(z.string(), z.unknown())),
        count: z.number(),
        hours: z.number(),
      })
      .meta({ id: 'ExpiringPositions' }),
  }),
};
