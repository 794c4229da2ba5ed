import { z } from 'zod';
import { endpoint } from './endpoint.js';
import { MarketIdParamsSchema } from './markets.endpoints.js';

const AuditValueSchema = z.union([z.number(), z.string(), z.boolean(), z.null()]);

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
  audit: endpoint({
    method: 'get',
    path: '/api/admin/audit',
    auth: 'operator',
    tag: 'Operator',
    summary:
      "The ledger audit: every agent's balance and positions and every market's book recomputed from the durable record",
    description:
      'Agents from their ledger entries (counters, conservation of money, positions), markets from their event log ' +
      '(fills, anchor, version, status) and cross-checked with the filled trades. A document that has not applied ' +
      'its last entries yet is counted as `behind` and compared with its log up to what it applied. Values are ' +
      'micro-units (1e-6) as stored; `expected` is recomputed, `actual` is stored.',
    query: z.object({ max_differences: z.coerce.number().int().min(1).max(10_000).default(100) }),
    response: z
      .object({
        ok: z.boolean(),
        checked: z.object({ agents: z.number(), positions: z.number(), markets: z.number() }),
        behind: z.object({ agents: z.number(), markets: z.number() }),
        differences: z.array(
          z.object({
            kind: z.enum(['agent', 'position', 'market']),
            id: z.string(),
            field: z.string(),
            expected: AuditValueSchema,
            actual: AuditValueSchema,
          }),
        ),
        difference_count: z.number(),
        truncated: z.boolean(),
        took_ms: z.number(),
      })
      .meta({ id: 'LedgerAudit' }),
  }),
};
