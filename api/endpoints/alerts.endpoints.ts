import { z } from 'zod';
import { ALERT_CONDITIONS } from '../../shared/domains/alerts/price-alert.model.js';
import { MAX_TRIGGERED_HOURS } from '../../shared/domains/alerts/price-alerts.js';
import { endpoint } from './endpoint.js';

const EVALUATION_NOTE =
  'Alerts are evaluated on every price change the service records (sim fills and external price re-anchors), in order, off the trade path. `above`/`below` fire the first time the side’s price is at/over (under) the threshold; `crosses_above`/`crosses_below` fire only when the price moves there from the other side of the threshold after the alert was created. An alert fires once (`triggered_at` set): it emits a `price.movement` event to the agent’s webhooks subscribed to it and, when `webhook_url` is set, POSTs the same JSON body `{id, type, created_at, data}` there (unsigned; same SSRF guard as webhooks).';

const AlertSchema = z
  .object({
    id: z.string(),
    market_id: z.string(),
    market_question: z.string().nullable(),
    side: z.enum(['yes', 'no']),
    condition: z.enum(ALERT_CONDITIONS),
    threshold: z.number(),
    webhook_url: z.string().nullable(),
    triggered_at: z.string().nullable(),
    triggered_price: z.number().nullable(),
    created_at: z.string(),
  })
  .meta({ id: 'AlertResponse' });

const AlertList = z.object({ alerts: z.array(AlertSchema), count: z.number().int() });

/** The Python client sends booleans as `True`/`False`; lowercase and 1/0 are accepted too. */
const queryBool = z
  .enum(['True', 'False', 'true', 'false', '1', '0'])
  .transform((v) => v === 'True' || v === 'true' || v === '1');

export const alertEndpoints = {
  createAlert: endpoint({
    method: 'post',
    path: '/api/sdk/alerts',
    auth: 'agent',
    tag: 'Alerts',
    summary: 'Create a price alert on a market side',
    description: EVALUATION_NOTE,
    body: z.object({
      market_id: z.string().trim().min(1).max(200),
      side: z.preprocess((v) => (typeof v === 'string' ? v.toLowerCase() : v), z.enum(['yes', 'no'])),
      condition: z.enum(ALERT_CONDITIONS),
      threshold: z
        .number()
        .min(0, 'threshold is a price between 0 and 1')
        .max(1, 'threshold is a price between 0 and 1'),
      webhook_url: z.string().min(1).max(2048).nullish(),
    }),
    response: AlertSchema,
    errors: [404, 409],
  }),
  listAlerts: endpoint({
    method: 'get',
    path: '/api/sdk/alerts',
    auth: 'agent',
    tag: 'Alerts',
    summary: 'The agent’s price alerts (untriggered only unless include_triggered=True), newest first',
    query: z.object({ include_triggered: queryBool.default(false) }),
    response: AlertList,
  }),
  triggeredAlerts: endpoint({
    method: 'get',
    path: '/api/sdk/alerts/triggered',
    auth: 'agent',
    tag: 'Alerts',
    summary: `Alerts that fired within the last \`hours\` (default 24, at most ${MAX_TRIGGERED_HOURS}), latest first`,
    query: z.object({
      hours: z.coerce
        .number()
        .positive('hours is a positive number')
        .max(MAX_TRIGGERED_HOURS, `hours is at most ${MAX_TRIGGERED_HOURS} (a week)`)
        .default(24),
    }),
    response: AlertList,
  }),
  deleteAlert: endpoint({
    method: 'delete',
    path: '/api/sdk/alerts/{alert_id}',
    auth: 'agent',
    tag: 'Alerts',
    summary: 'Delete a price alert (a pending delivery to its webhook_url is dropped)',
    params: z.object({ alert_id: z.string().min(1).max(100) }),
    response: z.object({ success: z.boolean(), id: z.string() }),
    errors: [404],
  }),
};
