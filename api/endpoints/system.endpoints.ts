import { z } from 'zod';
import { endpoint } from './endpoint.js';

const CheckSchema = z.object({ ok: z.boolean(), latency_ms: z.number(), error: z.string().optional() });
const CheckStateSchema = z.enum(['ok', 'down']);

export const systemEndpoints = {
  x402Import: endpoint({
    method: 'post',
    path: '/x402/api/sdk/markets/import',
    auth: 'none',
    tag: 'System',
    summary:
      'Where the daily import 429 points (`x402_url`): pay-per-import is not offered by this deployment',
    description:
      'Answers 402 Payment Required with what to do instead: wait for the daily quota to reset, re-import markets already here (free), or move to a higher tier.',
    response: z
      .object({ detail: z.string(), error: z.string(), fix: z.string(), resets_at: z.string() })
      .meta({ id: 'PaymentRequired' }),
    // The only answer is the 402: published, so that generated clients accept it.
    errors: [402],
  }),
  sdkHealth: endpoint({
    method: 'get',
    path: '/api/sdk/health',
    auth: 'none',
    tag: 'System',
    summary: 'Service health for clients',
    response: z
      .object({ status: z.literal('ok'), timestamp: z.string(), version: z.string() })
      .meta({ id: 'Health' }),
  }),
  versionCheck: endpoint({
    method: 'get',
    path: '/api/sdk/version-check',
    auth: 'none',
    tag: 'System',
    summary: 'Is this client SDK version supported here? ok, deprecated (upgrade advised) or blocked',
    query: z.object({ sdk_version: z.string().max(40).optional() }),
    response: z
      .object({
        status: z.enum(['ok', 'deprecated', 'blocked']),
        message: z.string(),
        latest_version: z.string().nullable(),
        minimum_version: z.string().nullable(),
      })
      .meta({ id: 'VersionCheck' }),
  }),
  live: endpoint({
    method: 'get',
    path: '/healthz/live',
    auth: 'none',
    tag: 'System',
    summary: 'Liveness: the process answers and can heal itself',
    description:
      'Answers 503 `{"status":"down"}` once `npm start` gave up restarting an embedded Redis or database that kept exiting (EMBEDDED_RESTART_MAX_FAILURES): the process then needs a restart.',
    response: z.object({ status: z.enum(['ok', 'down']) }),
    errors: [503],
  }),
  ready: endpoint({
    method: 'get',
    path: '/healthz/ready',
    auth: 'operator-optional',
    tag: 'System',
    summary:
      'Readiness: MongoDB and Redis answer and a no-op job makes a round trip through the queue to a worker',
    description:
      'Answers 503 with the same body when any check fails. The queue round trip is shared by the probes of a few seconds, but every probe asks the queue’s Redis (1 s deadline), so a Redis outage shows at once. With the operator token the answer adds `details` (latencies, what failed, the scheduler heartbeat).',
    response: z
      .object({
        status: z.enum(['ok', 'unavailable']),
        checks: z.object({ mongodb: CheckStateSchema, redis: CheckStateSchema, queue: CheckStateSchema }),
        details: z
          .object({
            mongodb: CheckSchema,
            redis: CheckSchema,
            queue: CheckSchema,
            scheduler_last_heartbeat: z.string().nullable(),
          })
          .optional()
          .describe('Only for the operator token: the messages name internal hosts and ports.'),
      })
      .meta({ id: 'Readiness' }),
    errors: [503],
  }),
  metrics: endpoint({
    method: 'get',
    path: '/metrics',
    // Queue depths, routes and venue error rates describe the deployment: operators only.
    auth: 'operator',
    tag: 'System',
    summary: 'Prometheus metrics: HTTP latency histograms, queue depths, process metrics',
    description:
      'Scrape with the operator token: `authorization: {type: Bearer, credentials: <OPERATOR_TOKEN>}` in the Prometheus job.',
    response: z.string(),
    produces: 'text/plain',
  }),
  openapi: endpoint({
    method: 'get',
    path: '/openapi.json',
    auth: 'none',
    tag: 'System',
    summary: 'This OpenAPI 3.1.0 document',
    response: z.record(z.string(), z.unknown()),
  }),
};
