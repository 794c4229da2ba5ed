import { z } from 'zod';
import { WEBHOOK_EVENTS } from '../../shared/domains/webhooks/webhook.model.js';
import { endpoint } from './endpoint.js';

const SSRF_NOTE =
  'Deliveries are POSTed as JSON `{id, type, created_at, data}` (`id` is the event id: deduplicate on it, delivery is at least once) with `X-Simmer-Timestamp` (Unix seconds, new on every attempt) and, when a secret is set, `X-Simmer-Signature-V2` (hex HMAC-SHA256 with the secret of the timestamp, a dot and the raw body: verify it, compare in constant time and refuse a timestamp more than 300 s from your clock, so a captured delivery cannot be replayed) and `X-Simmer-Signature` (hex HMAC-SHA256 of the raw body alone, kept for clients that verify it; it does not cover the timestamp). The URL must be https in production and resolve to a public address (loopback, link-local, private, metadata and documentation ranges, IPv6 forms carrying them and the host’s own networks are refused, for every address the name resolves to, at registration and at every connect; `last_error` says only `could not connect to the webhook URL` for failures below HTTP); redirects are not followed. Failed deliveries are retried with exponential backoff; 10 consecutive failures deactivate the webhook (`active: false`).';

const EVENTS_NOTE =
  'Events (default: all): `trade.executed` (a trade filled; on Polymarket at the match, before the chain settles it), `trade.failed` (a matched trade the venue’s chain reverted: its booking and position were rolled back; `data` has `trade_id`, `order_id`, `shares`, `amount`, `whole` (false when only part of the order failed), `error_code: "settlement_failed"`, `failure_reason`; also sent to webhooks subscribed to `trade.executed`), `market.resolved`, `price.movement`, `reactor.signal` (a watched wallet’s fill became a trade-ready Reactor signal for the agent: `data` is the signal as `GET /api/sdk/reactor/pending` shows it, with `agent_id`).';

const WebhookSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.enum(WEBHOOK_EVENTS)),
    active: z.boolean(),
    consecutive_failures: z.number().int(),
    last_delivery_at: z.string().nullable(),
    last_error: z.string().nullable(),
    has_secret: z.boolean(),
    created_at: z.string(),
  })
  .meta({ id: 'Webhook' });

export const webhookEndpoints = {
  registerWebhook: endpoint({
    method: 'post',
    path: '/api/sdk/webhooks',
    auth: 'agent',
    tag: 'Webhooks',
    summary:
      'Register a webhook receiver for trade.executed, trade.failed, market.resolved, price.movement and reactor.signal events',
    description: `${EVENTS_NOTE} ${SSRF_NOTE}`,
    body: z.object({
      url: z.string().min(1).max(2048),
      events: z.array(z.enum(WEBHOOK_EVENTS)).max(WEBHOOK_EVENTS.length).nullish(),
      secret: z.string().min(8).max(256).nullish(),
    }),
    response: WebhookSchema,
    errors: [409],
  }),
  listWebhooks: endpoint({
    method: 'get',
    path: '/api/sdk/webhooks',
    auth: 'agent',
    tag: 'Webhooks',
    summary: 'The agent’s webhooks with their delivery state',
    response: z.object({ webhooks: z.array(WebhookSchema), count: z.number().int() }),
  }),
  testWebhook: endpoint({
    method: 'post',
    path: '/api/sdk/webhooks/test',
    auth: 'agent',
    tag: 'Webhooks',
    summary: 'Send a signed `webhook.test` event to every active webhook of the agent (no body)',
    response: z.object({
      success: z.boolean(),
      event_id: z.string(),
      queued: z.number().int(),
      webhook_ids: z.array(z.string()),
      message: z.string(),
    }),
  }),
  deleteWebhook: endpoint({
    method: 'delete',
    path: '/api/sdk/webhooks/{webhook_id}',
    auth: 'agent',
    tag: 'Webhooks',
    summary: 'Delete a webhook (queued deliveries to it are dropped)',
    params: z.object({ webhook_id: z.string().min(1).max(100) }),
    response: z.object({ success: z.boolean(), id: z.string() }),
    errors: [404],
  }),
};
