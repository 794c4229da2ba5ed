import { Schema, type Connection, type Model } from 'mongoose';
import type { SealedSecret } from '../../infra/secrets/envelope.js';
import type { SchemaRecord } from '../schema-record.js';
import { sealedSecretSchema } from '../wallets/wallet.model.js';

/** The events an agent can subscribe to (client-contract §7.4); the default is all of them. */
export const WEBHOOK_EVENTS = [
  'trade.executed',
  'trade.failed',
  'market.resolved',
  'price.movement',
  'reactor.signal',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/**
 * Events also sent to the webhooks subscribed to another: `trade.failed` takes back a
 * `trade.executed` (a match the chain reverted), so a receiver of the one hears of the other, and
 * webhooks registered before the event existed are told too.
 */
export const ALSO_SENT_TO: Partial<Record<WebhookEvent, WebhookEvent[]>> = {
  'trade.failed': ['trade.executed'],
};

/** Consecutive failed deliveries after which a webhook is switched off (`active: false`). */
export const MAX_CONSECUTIVE_FAILURES = 10;

/** Where a webhook keeps its delivery health (delivery-health.ts). */
export const WEBHOOK_HEALTH_PATHS = {
  active: 'active',
  consecutiveFailures: 'consecutiveFailures',
  lastError: 'lastError',
  lastDeliveryAt: 'lastDeliveryAt',
} as const;

/**
 * An agent's webhook receiver. The signing secret is sealed (envelope encryption, context
 * `webhook:<id>`); deliveries open it to sign. `consecutiveFailures` counts failed delivery attempts
 * since the last success; at MAX_CONSECUTIVE_FAILURES the webhook is deactivated.
 */
const webhookSchema = new Schema(
  {
    _id: { type: String, required: true },
    agentId: { type: String, required: true },
    url: { type: String, required: true },
    events: { type: [String], enum: WEBHOOK_EVENTS, required: true },
    secret: { type: sealedSecretSchema, default: null },
    active: { type: Boolean, required: true, default: true },
    consecutiveFailures: { type: Number, required: true, default: 0 },
    lastDeliveryAt: { type: Date, default: null },
    lastError: { type: String, default: null },
  },
  { collection: 'webhooks', timestamps: true, versionKey: false },
);
webhookSchema.index({ agentId: 1, active: 1 });

export type WebhookRecord = SchemaRecord<
  typeof webhookSchema,
  // A webhook registered without a secret has none; the enum path infers as string[].
  { secret: SealedSecret | null; events: WebhookEvent[] }
>;
export type WebhookModel = Model<WebhookRecord>;

export function webhookModel(conn: Connection): WebhookModel {
  return (
    (conn.models.Webhook as WebhookModel | undefined) ?? conn.model<WebhookRecord>('Webhook', webhookSchema)
  );
}

export const webhookSecretContext = (webhookId: string) => `webhook:${webhookId}`;
