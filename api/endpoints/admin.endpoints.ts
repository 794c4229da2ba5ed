import { z } from 'zod';
import { endpoint } from './endpoint.js';
import { MarketIdParamsSchema } from './markets.endpoints.js';

export const adminEndpoints = {
  resolveMarket: endpoint({
    method: 'post',
    path: '/api/admin/markets/{market_id}/resolve',
    auth: 'operator',
    tag: 'Operator',
    summary: 'Resolve a market and settle its sim positions (winning shares pay 1 $SIM)',
    description:
      'Idempotent: resolving again with the same outcome answers the same; another outcome is a 409.',
    params: MarketIdParamsSchema,
    body: z.strictObject({ outcome: z.boolean() }).meta({ id: 'ResolveMarketRequest' }),
    response: z
      .object({
        market_id: z.string(),
        status: z.literal('resolved'),
        outcome: z.boolean(),
        resolved_at: z.string(),
        settlement: z.object({
          state: z.enum(['completed', 'queued']),
          positions: z.number().optional(),
          payout: z.number().optional(),
          job_id: z.string(),
        }),
      })
      .meta({ id: 'ResolveMarketResult' }),
    errors: [404, 409],
  }),
  venues: endpoint({
    method: 'get',
    path: '/api/admin/venues',
    auth: 'operator',
    tag: 'Operator',
    summary: "Each venue's base URLs and health: last success, last error, circuit state per host",
    response: z
      .object({
        venues: z.array(
          z.object({
            venue: z.string(),
            hosts: z.array(
              z.object({
                base_url: z.string(),
                circuit: z.enum(['closed', 'open', 'half_open']),
                last_success_at: z.string().nullable(),
                last_error_at: z.string().nullable(),
                last_error: z.string().nullable(),
                consecutive_failures: z.number(),
              }),
            ),
          }),
        ),
        mode: z.enum(['live', 'emulated']),
      })
      .meta({ id: 'VenueHealth' }),
  }),
};
