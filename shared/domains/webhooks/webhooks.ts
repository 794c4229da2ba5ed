import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';
import type { ResolveHost } from './url-guard.js';
import { randomUUID } from 'node:crypto';
import { AppError, invalidField, notFound } from '../../infra/errors.js';
import { secretBox } from '../../infra/secrets/master-key.js';
import type { AgentRecord } from '../agents/agent.model.js';
import type { TradingSettingsUpdate } from '../limits/settings.schemas.js';
import { emitToBridgesOfMany } from './clawdbot-bridge.js';
import { assertPublicHost, hostOf, parseWebhookUrl, UnsafeWebhookUrl, urlGuardOf } from './url-guard.js';
import {
  ALSO_SENT_TO,
  WEBHOOK_EVENTS,
  webhookSecretContext,
  type WebhookEvent,
  type WebhookRecord,
} from './webhook.model.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type WebhooksDeps = Pick<InfraDeps, 'env' | 'queues' | 'clock'> & {
  models: Models;
  resolveHost?: ResolveHost;
};

/** Webhooks one agent may hold (active or not). */
export const MAX_WEBHOOKS_PER_AGENT = 10;

/** The event type of `POST /api/sdk/webhooks/test`, sent to every active webhook of the agent. */
export const TEST_EVENT = 'webhook.test';

export interface WebhookRegistration {
  url: string;
  events?: WebhookEvent[] | null;
  secret?: string | null;
}

export const webhookView = (w: WebhookRecord) => ({
  id: w._id,
  url: w.url,
  events: w.events,
  active: w.active,
  consecutive_failures: w.consecutiveFailures,
  last_delivery_at: w.lastDeliveryAt?.toISOString() ?? null,
  last_error: w.lastError,
  has_secret: w.secret !== null,
  created_at: (w as unknown as { createdAt: Date }).createdAt.toISOString(),
});

/** The URL checked by the SSRF guard, every address its host resolves to included (`field` names it in a refusal). */
export async function checkedUrl(
  deps: Pick<WebhooksDeps, 'env' | 'resolveHost'>,
  raw: string,
  field = 'url',
): Promise<string> {
  const guard = urlGuardOf(deps);
  try {
    const url = parseWebhookUrl(raw, guard);
    await assertPublicHost(hostOf(url), guard);
    return url.toString();
  } catch (err) {
    if (err instanceof UnsafeWebhookUrl) throw invalidField(field, err.message, raw, err.fix);
    throw err;
  }
}

/** A settings update with its chat bridge URL checked by the same guard as a webhook's (null clears it). */
export async function checkedBridgeUrl(
  deps: Pick<WebhooksDeps, 'env' | 'resolveHost'>,
  input: TradingSettingsUpdate,
): Promise<TradingSettingsUpdate> {
  const url = input.clawdbot_webhook_url;
  if (!url) return input;
  return { ...input, clawdbot_webhook_url: await checkedUrl(deps, url, 'clawdbot_webhook_url') };
}

export async function registerWebhook(deps: WebhooksDeps, agent: AgentRecord, reg: WebhookRegistration) {
  const { Webhook } = deps.models;
  const url = await checkedUrl(deps, reg.url);
  if ((await Webhook.countDocuments({ agentId: agent._id })) >= MAX_WEBHOOKS_PER_AGENT)
    throw new AppError(
      409,
      'webhook_limit',
      `An agent may hold ${MAX_WEBHOOKS_PER_AGENT} webhooks`,
      'Delete one you no longer use (DELETE /api/sdk/webhooks/{id}) first.',
      { retryable: false },
    );
  const id = randomUUID();
  const events = reg.events?.length ? [...new Set(reg.events)] : [...WEBHOOK_EVENTS];
  const secret = reg.secret ? secretBox(deps.env).seal(reg.secret, webhookSecretContext(id)) : null;
  const created = await Webhook.create({ _id: id, agentId: agent._id, url, events, secret });
  return webhookView(created.toObject() as WebhookRecord);
}

export async function listWebhooks(deps: WebhooksDeps, agent: AgentRecord) {
  const hooks = await deps.models.Webhook.find({ agentId: agent._id }).sort({ createdAt: 1 }).lean();
  return { webhooks: hooks.map((h) => webhookView(h as WebhookRecord)), count: hooks.length };
}

export async function deleteWebhook(deps: WebhooksDeps, agent: AgentRecord, id: string) {
  const deleted = await deps.models.Webhook.deleteOne({ _id: id, agentId: agent._id });
  if (!deleted.deletedCount)
    throw notFound('Webhook', 'List your webhooks (GET /api/sdk/webhooks) and use one of their ids.');
  return { success: true, id };
}

/**
 * Enqueues one delivery of an event to each active webhook of these agents subscribed to it (every
 * active one for the test event), and to their owners' chat bridges (clawdbot-bridge.ts). The job id is the webhook and the event id, so emitting the same
 * event again (a retried trade job, a second settlement run) delivers nothing new.
 */
export async function emitWebhookEvent(
  deps: Pick<WebhooksDeps, 'models' | 'queues' | 'env' | 'clock'>,
  agentIds: string[],
  event: WebhookEventToEmit,
): Promise<{ queued: number; webhook_ids: string[] }> {
  const [sent] = await emitWebhookEvents(deps, [{ agentIds, event }]);
  return sent!;
}

type WebhookEventToEmit = {
  type: WebhookEvent | typeof TEST_EVENT;
  id: string;
  data: Record<string, unknown>;
};

/** The event types a webhook subscribed to receives `type` under (every type for the test event). */
const sentAs = (type: WebhookEventToEmit['type']): WebhookEvent[] | null =>
  type === TEST_EVENT ? null : [type, ...(ALSO_SENT_TO[type] ?? [])];

/**
 * `emitWebhookEvent` for many events at once (the effects of a batch of fills): the same deliveries,
 * with one read of the webhooks and one of the chat bridges for all of them. Answers in order.
 */
export async function emitWebhookEvents(
  deps: Pick<WebhooksDeps, 'models' | 'queues' | 'env' | 'clock'>,
  items: { agentIds: string[]; event: WebhookEventToEmit }[],
): Promise<{ queued: number; webhook_ids: string[] }[]> {
  const agentIds = [...new Set(items.flatMap((i) => i.agentIds))];
  if (!agentIds.length) return items.map(() => ({ queued: 0, webhook_ids: [] }));
  const types = items.map((i) => sentAs(i.event.type));
  const anyType = types.some((t) => t === null);
  const hooks = await deps.models.Webhook.find(
    {
      agentId: { $in: agentIds },
      active: true,
      ...(anyType ? {} : { events: { $in: [...new Set(types.flatMap((t) => t ?? []))] } }),
    },
    { _id: 1, agentId: 1, events: 1 },
  ).lean();
  const createdAt = deps.clock().toISOString();
  const backoff = { type: 'exponential', delay: deps.env.WEBHOOK_RETRY_BASE_MS };
  const sent = items.map(({ agentIds: ids, event }, i) => {
    const wanted = types[i] ?? null;
    const mine = hooks.filter(
      (h) => ids.includes(h.agentId) && (wanted === null || h.events.some((e) => wanted.includes(e))),
    );
    return { event, hooks: mine };
  });
  await Promise.all(
    sent.flatMap(({ event, hooks: mine }) =>
      mine.map((h) =>
        deps.queues.enqueue(
          'deliver-webhook',
          { webhookId: h._id, eventId: event.id, type: event.type, createdAt, data: event.data },
          { backoff },
        ),
      ),
    ),
  );
  await emitToBridgesOfMany(deps, items, createdAt);
  return sent.map(({ hooks: mine }) => ({ queued: mine.length, webhook_ids: mine.map((h) => h._id) }));
}

export async function testWebhooks(deps: WebhooksDeps, agent: AgentRecord) {
  const eventId = `${TEST_EVENT}.${randomUUID()}`;
  const sent = await emitWebhookEvent(deps, [agent._id], {
    type: TEST_EVENT,
    id: eventId,
    data: { agent_id: agent._id, message: 'Test delivery from POST /api/sdk/webhooks/test.' },
  });
  return {
    success: sent.queued > 0,
    event_id: eventId,
    ...sent,
    message: sent.queued
      ? `A ${TEST_EVENT} event is on its way to ${sent.queued} webhook(s).`
      : 'No active webhook: register one with POST /api/sdk/webhooks first.',
  };
}
