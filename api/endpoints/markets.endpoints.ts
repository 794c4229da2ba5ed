import { z } from 'zod';
import {
  HistoryQuerySchema,
  MarketListQuerySchema,
  PublicMarketsQuerySchema,
} from '../../shared/domains/markets/market-query.schemas.js';
import {
  ImportableQuerySchema,
  ImportRequestSchema,
  KalshiEventImportRequestSchema,
  KalshiImportRequestSchema,
  VenueImportRequestSchema,
} from '../../shared/domains/imports/import.schemas.js';
import {
  ImportResponseSchema,
  KalshiImportResponseSchema,
  VenueImportResponseSchema,
} from './import-answer.schemas.js';
import { venueEnum } from '../../shared/domains/venues/venue-schemas.js';
import { endpoint } from './endpoint.js';

const MarketRow = z
  .looseObject({
    id: z.string(),
    question: z.string(),
    status: z.string(),
    current_probability: z.number(),
    seconds_to_resolution: z.number().nullable(),
  })
  .meta({
    id: 'Market',
    description: 'Spec §2.2 fields plus the client row keys (null where a field does not apply).',
  });

export const MarketIdParamsSchema = z.object({ market_id: z.string().min(1).max(200) });

export const marketEndpoints = {
  listMarkets: endpoint({
    method: 'get',
    path: '/api/sdk/markets',
    auth: 'agent',
    tag: 'Markets',
    summary: 'List markets (spec §4.1): filters, then a window of at most 1,000 matches, then limit/offset',
    description:
      'Unknown parameters and unknown venue/sort/include values are not errors: `warning` names the valid ones and the closest match. An empty result carries `empty_reason`, `hint` and `matched_before_tradeable_filter`.',
    query: MarketListQuerySchema,
    response: z
      .looseObject({
        markets: z.array(MarketRow),
        total: z.number(),
        truncated: z.boolean(),
        capped_at_limit: z.boolean(),
        warning: z.string().optional(),
        empty_reason: z.string().optional(),
        hint: z.string().optional(),
        matched_before_tradeable_filter: z.number().optional(),
        agent_id: z.string(),
      })
      .meta({ id: 'MarketList' }),
  }),
  // Before getMarket: Express would otherwise take "check" for a market_id.
  checkMarket: endpoint({
    method: 'get',
    path: '/api/sdk/markets/check',
    auth: 'agent',
    tag: 'Markets',
    summary:
      'Is this venue market already here? By url, condition_id or ticker (exactly one); free of import quota',
    query: z.object({
      url: z.string().max(2000).optional(),
      condition_id: z.string().max(100).optional(),
      ticker: z.string().max(100).optional(),
    }),
    response: z
      .looseObject({
        exists: z.boolean(),
        market_id: z.string().optional(),
        question: z.string().optional(),
        status: z.string().optional(),
      })
      .meta({ id: 'MarketCheck' }),
  }),
  importableMarkets: endpoint({
    method: 'get',
    path: '/api/sdk/markets/importable',
    auth: 'agent',
    tag: 'Markets',
    summary: 'Open venue markets not imported yet, by 24 h volume, each with the url to import it by',
    query: ImportableQuerySchema,
    response: z
      .looseObject({
        markets: z.array(
          z.looseObject({
            question: z.string(),
            url: z.string().nullable(),
            condition_id: z
              .string()
              .nullable()
              .meta({ description: 'Polymarket rows; null on Kalshi rows.' }),
            kalshi_ticker: z.string().optional().meta({ description: 'Kalshi rows.' }),
          }),
        ),
        total: z.number(),
        agent_id: z.string(),
      })
      .meta({ id: 'ImportableMarkets' }),
    errors: [503],
  }),
  importMarket: endpoint({
    method: 'post',
    path: '/api/sdk/markets/import',
    auth: 'agent',
    tag: 'Markets',
    summary: 'Import a Polymarket event or market by URL; answers in the same call (re-imports are free)',
    description:
      'Multi-outcome events import up to 10 outcomes unless `market_ids` names them. Quota per agent per UTC day by tier (headers `X-Imports-Remaining`, `X-Imports-Limit`); the daily 429 carries `x402_url`. The URL is parsed, never fetched.',
    body: ImportRequestSchema,
    response: ImportResponseSchema,
    errors: [404, 429, 503],
    rateLimit: 'import',
  }),
  importKalshiMarket: endpoint({
    method: 'post',
    path: '/api/sdk/markets/import/kalshi',
    auth: 'agent',
    tag: 'Markets',
    summary: 'Import a Kalshi market (or every outcome of an event) by kalshi.com URL or ticker, any case',
    description:
      'A market ticker imports that market; an event ticker or event URL imports its outcomes (up to 10, skipping closed ones and ones priced under 2¢ or over 98¢); a series URL imports its open event closing soonest. Same quota, headers and 429 `x402_url` as Polymarket imports; re-imports are free. The URL is parsed, never fetched.',
    body: KalshiImportRequestSchema,
    response: KalshiImportResponseSchema,
    errors: [404, 422, 429, 503],
    rateLimit: 'import',
  }),
  importKalshiEvent: endpoint({
    method: 'post',
    path: '/api/sdk/markets/import/kalshi/event',
    auth: 'agent',
    tag: 'Markets',
    summary: 'Import every outcome of a Kalshi event (multi-bracket events) as one import',
    description:
      '`event_ticker` is an event ticker, a market ticker of the event, or a kalshi.com event URL. Up to 10 open outcomes, skipping closed ones and ones priced under 2¢ or over 98¢; counts as one import of the daily quota.',
    body: KalshiEventImportRequestSchema,
    response: KalshiImportResponseSchema,
    errors: [404, 422, 429, 503],
    rateLimit: 'import',
  }),
  importVenueMarket: endpoint({
    method: 'post',
    path: '/api/sdk/markets/import/venue',
    auth: 'agent',
    tag: 'Markets',
    summary: 'Import a market of any external venue this service connects to, by its page URL',
    description:
      'The venue reads the URL (never fetched) as a market, an event (up to 10 outcomes) or a series (its open event closing soonest). Same quota, headers and 429 `x402_url` as the Polymarket and Kalshi imports; re-imports are free.',
    body: VenueImportRequestSchema,
    response: VenueImportResponseSchema,
    errors: [404, 422, 429, 503],
    rateLimit: 'import',
  }),
  getMarket: endpoint({
    method: 'get',
    path: '/api/sdk/markets/{market_id}',
    auth: 'agent',
    tag: 'Markets',
    summary: 'One market by its service id (UUID)',
    params: MarketIdParamsSchema,
    response: z.object({ market: MarketRow, agent_id: z.string() }).meta({ id: 'MarketDetail' }),
    errors: [404],
  }),
  executablePrice: endpoint({
    method: 'get',
    path: '/api/sdk/markets/{market_id}/executable-price',
    auth: 'agent',
    tag: 'Markets',
    summary:
      'The price an order of this side and size executes at now: the venue book walked, or the sim LMSR quote',
    description:
      'Buys walk the asks of the side for `amount` USD, sells the bids for `shares`; `price` is the worst level reached (one tick worse with apply_buffer=true). No liquidity answers `success: false`.',
    params: MarketIdParamsSchema,
    query: z.object({
      side: z.preprocess((v) => (typeof v === 'string' ? v.toLowerCase() : v), z.enum(['yes', 'no'])),
      action: z
        .preprocess((v) => (typeof v === 'string' ? v.toLowerCase() : v), z.enum(['buy', 'sell']))
        .default('buy'),
      amount: z.coerce.number().positive().max(1e9).optional(),
      shares: z.coerce.number().positive().max(1e9).optional(),
      apply_buffer: z
        .enum(['true', 'false', '1', '0'])
        .default('false')
        .transform((v) => v === 'true' || v === '1'),
      venue: z
        .enum(['sim', 'polymarket', 'kalshi'])
        .optional()
        .meta({ description: "Default: the market's own venue." }),
    }),
    response: z
      .looseObject({ success: z.boolean(), price: z.number().nullable(), market_id: z.string() })
      .meta({ id: 'ExecutablePrice' }),
    errors: [404],
  }),
  marketHistory: endpoint({
    method: 'get',
    path: '/api/sdk/markets/{market_id}/history',
    auth: 'agent',
    tag: 'Markets',
    summary: 'Price history, one point per interval (downsampled)',
    params: MarketIdParamsSchema,
    query: HistoryQuerySchema,
    response: z
      .object({
        market_id: z.string(),
        points: z.array(z.object({ timestamp: z.string(), price_yes: z.number(), price_no: z.number() })),
        interval_minutes: z.number(),
        hours: z.number(),
      })
      .meta({ id: 'PriceHistory' }),
    errors: [404],
  }),
  publicMarkets: endpoint({
    method: 'get',
    path: '/api/markets',
    auth: 'none',
    tag: 'Markets',
    summary: 'Public market catalogue (no auth): active, trending, new, ending or resolved',
    query: PublicMarketsQuerySchema,
    response: z
      .object({ markets: z.array(MarketRow), count: z.number(), status: z.string() })
      .meta({ id: 'PublicMarketList' }),
  }),
  publicMarketHistory: endpoint({
    method: 'get',
    path: '/api/markets/{market_id}/history',
    auth: 'none',
    tag: 'Markets',
    summary: "Public price history for a chart (no auth): the sim price, the venue's price and the trades",
    description:
      "What the dashboard's market page draws: the sim price on the `hours`/`interval` grid plus its value now, the external (venue) price the book was re-anchored to (null on sim markets), and every fill in the window. Shared for READ_CACHE_SECONDS.",
    params: MarketIdParamsSchema,
    query: HistoryQuerySchema,
    response: z
      .object({
        market_id: z.string(),
        question: z.string(),
        hours: z.number(),
        interval_minutes: z.number(),
        has_external_price: z.boolean(),
        points: z.array(
          z.object({
            timestamp: z.string(),
            price_yes: z.number(),
            external_price_yes: z.number().nullable(),
          }),
        ),
        trades: z.array(
          z.object({
            timestamp: z.string(),
            side: z.enum(['yes', 'no']).nullable(),
            action: z.enum(['buy', 'sell']).nullable(),
            amount: z.number(),
            shares: z.number(),
            price_after: z.number().meta({ description: 'The sim YES price the fill left the book at.' }),
          }),
        ),
      })
      .meta({ id: 'MarketChartHistory' }),
    errors: [404],
  }),
  fastMarkets: endpoint({
    method: 'get',
    path: '/api/sdk/fast-markets',
    auth: 'agent',
    tag: 'Markets',
    summary: 'Short-window markets (5m to daily): live ones first, then the soonest to resolve',
    query: z.object({
      limit: z.coerce.number().int().min(1).max(200).default(50),
      asset: z.string().max(20).optional().meta({ description: 'BTC, ETH, SOL, XRP, DOGE, …' }),
      window: z.enum(['5m', '15m', '1h', '4h', 'daily']).optional(),
      market_status: z.enum(['live', 'upcoming']).optional(),
      venue: venueEnum('ids').optional(),
      sort: z
        .enum(['volume', 'opportunity', 'resolves_at'])
        .optional()
        .meta({ description: 'Accepted; rows are always live first, then soonest.' }),
    }),
    response: z
      .object({ markets: z.array(MarketRow), total: z.number(), agent_id: z.string() })
      .meta({ id: 'FastMarketList' }),
  }),
};
