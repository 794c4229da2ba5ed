import { z } from 'zod';
import { endpoint } from './endpoint.js';

const MarketRow = z
  .looseObject({ id: z.string(), question: z.string(), status: z.string(), current_probability: z.number() })
  .meta({ id: 'Market' });

export const MarketIdParamsSchema = z.object({ market_id: z.string().min(1).max(200) });

export const MarketListQuerySchema = z.object({
  status: z.enum(['active', 'closed', 'resolved', 'all']).default('active'),
  venue: z
    .preprocess(
      (v) => (typeof v === 'string' ? v.toLowerCase() : v),
      z.enum(['sim', 'simmer', 'sandbox', 'polymarket', 'kalshi']),
    )
    .optional(),
  import_source: z
    .preprocess(
      (v) => (typeof v === 'string' ? v.toLowerCase() : v),
      z.enum(['sim', 'simmer', 'sandbox', 'polymarket', 'kalshi']),
    )
    .optional(),
  sort: z.enum(['volume', 'recent', 'created']).default('volume'),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});

export const marketEndpoints = {
  listMarkets: endpoint({
    method: 'get',
    path: '/api/sdk/markets',
    auth: 'agent',
    tag: 'Markets',
    summary: 'List markets (by 24 h volume by default)',
    query: MarketListQuerySchema,
    response: z
      .looseObject({
        markets: z.array(MarketRow),
        total: z.number(),
        truncated: z.boolean(),
        capped_at_limit: z.boolean(),
        agent_id: z.string(),
      })
      .meta({ id: 'MarketList' }),
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
};
