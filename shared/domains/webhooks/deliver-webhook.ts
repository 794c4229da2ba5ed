import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { AppError } from '../../infra/errors.js';
import type { JobData } from '../../infra/queue/jobs.js';
import { secretBox } from '../../infra/secrets/master-key.js';
import type { SealedSecret } from '../../infra/secrets/envelope.js';
import { CLAWDBOT_HEALTH_PATHS, clawdbotSecretContext } from '../limits/trading-settings.model.js';
import { recordDelivered, recordFailure, type Receiver } from './delivery-health.js';
import { WEBHOOK_HEALTH_PATHS, webhookSecretContext } from './webhook.model.js';
import { parseWebhookUrl, pinnedLookup, UnsafeWebhookUrl, urlGuardOf, type UrlGuard } from './url-guard.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type DeliverWebhookDeps = Pick<InfraDeps, 'env' | 'clock'> & { models: Models };

/** Bytes of a receiver's answer read at most; the rest is dropped with the connection. */
export const RESPONSE_CAP_BYTES = 64 * 1024;

/** HMAC of the body alone: what the official client verifies (client contract §7.4). */
export const SIGNATURE_HEADER = 'x-simmer-signature';
/** HMAC of `<timestamp>.<body>`: a captured delivery cannot be replayed under a new timestamp. */
export const SIGNATURE_V2_HEADER = 'x-simmer-signature-v2';
export const TIMESTAMP_HEADER = 'x-simmer-timestamp';

/**
 * What the owner reads (`last_error`) for every failure below HTTP: refused, reset, TLS spoken to a
 * plain port, timed out. Telling them apart would make a webhook a port scanner of the host.
 */
export const CONNECT_FAILURE = 'could not connect to the webhook URL';

/** The exact bytes a delivery sends: the same for every attempt of one event, so its signature is too. */
export const deliveryBody = (d: JobData<'deliver-webhook'>) =>
  JSON.stringify({ id: d.eventId, type: d.type, created_at: d.createdAt, data: d.data });

/** Hex HMAC-SHA256 of the raw body with the webhook's secret. */
export const signBody = (secret: string | Buffer, body: string) =>
  createHmac('sha256', secret).update(body).digest('hex');

/** Hex HMAC-SHA256 of `<timestamp>.<body>` (the X-Simmer-Timestamp value, a dot, the raw body). */
export const signTimestampedBody = (secret: string | Buffer, timestamp: string, body: string) =>
  signBody(secret, `${timestamp}.${body}`);

/**
 * One POST to a receiver through the guard: the name resolved and checked at connect time and the
 * checked address used, no redirect followed, a deadline on the whole exchange and at most
 * RESPONSE_CAP_BYTES of the answer read. Resolves with the status; rejects on a network error.
 */
function post(url: URL, body: string, headers: Record<string, string>, guard: UrlGuard, timeoutMs: number) {
  // An IP literal never goes through `lookup`: parseWebhookUrl, which made `url`, checked it.
  const send = url.protocol === 'https:' ? https.request : http.request;
  return new Promise<number>((resolve, reject) => {
    const req = send(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        lookup: pinnedLookup(guard),
        // A fresh connection per delivery: no pooled socket skips the connect-time check.
        agent: false,
        timeout: timeoutMs,
      },
      (res) => {
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > RESPONSE_CAP_BYTES) res.destroy();
        });
        res.on('close', () => resolve(res.statusCode ?? 0));
        res.on('error', () => resolve(res.statusCode ?? 0));
      },
    );
    const deadline = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    req.on('close', () => clearTimeout(deadline));
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

export type DeliveryResult =
  | { delivered: true; status: number }
  | { delivered: false; skipped: 'deleted' | 'inactive' }
  | { delivered: false; disabled: true; error: string };

/** The headers of every delivery of an event but the signature. */
const eventHeaders = (deps: DeliverWebhookDeps, d: JobData<'deliver-webhook'>): Record<string, string> => ({
  'content-type': 'application/json',
  'user-agent': 'agent-trading-webhooks/1',
  'x-simmer-event': d.type,
  'x-simmer-event-id': d.eventId,
  [TIMESTAMP_HEADER]: String(Math.floor(deps.clock().getTime() / 1000)),
});

/** Adds both signatures of `body` with the sealed secret (opened for this delivery only). */
function sign(
  deps: DeliverWebhookDeps,
  headers: Record<string, string>,
  body: string,
  sealed: SealedSecret,
  context: string,
) {
  const secret = secretBox(deps.env).open(sealed, context);
  try {
    headers[SIGNATURE_HEADER] = signBody(secret, body);
    headers[SIGNATURE_V2_HEADER] = signTimestampedBody(secret, headers[TIMESTAMP_HEADER]!, body);
  } finally {
    secret.fill(0);
  }
}

/**
 * One attempt through the guard: the 2xx status, or why it failed (`refused` by the SSRF guard):
 * `failure` for the owner, `detail` for the job's error (operators).
 */
async function attempt(
  deps: DeliverWebhookDeps,
  rawUrl: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number; failure?: undefined } | { failure: string; detail: string; refused: boolean }> {
  const guard = urlGuardOf(deps);
  try {
    const status = await post(
      parseWebhookUrl(rawUrl, guard),
      body,
      headers,
      guard,
      deps.env.WEBHOOK_TIMEOUT_MS,
    );
    if (status >= 200 && status < 300) return { status };
    const failure =
      status >= 300 && status < 400
        ? `the receiver answered ${status} (a redirect; redirects are not followed)`
        : `the receiver answered ${status}`;
    return { failure, detail: failure, refused: false };
  } catch (err) {
    if (err instanceof UnsafeWebhookUrl)
      return { failure: `refused: ${err.message}`, detail: `refused: ${err.message}`, refused: true };
    return { failure: CONNECT_FAILURE, detail: `not delivered: ${(err as Error).message}`, refused: false };
  }
}

const deliveryFailed = (what: string, failure: string) =>
  new AppError(
    502,
    'webhook_delivery_failed',
    `${what} failed: ${failure}`,
    'The receiver must answer 2xx within the timeout; the delivery is retried with backoff.',
    { retryable: true },
  );

/**
 * A price alert's event to the alert's own `webhook_url`: unsigned (the alert has no secret),
 * retried with backoff like any delivery, dropped when the alert is deleted or the guard refuses the URL.
 */
async function deliverToAlert(
  deps: DeliverWebhookDeps,
  d: JobData<'deliver-webhook'>,
): Promise<DeliveryResult> {
  const alert = await deps.models.PriceAlert.findById(d.alertId, { webhookUrl: 1 }).lean();
  if (!alert?.webhookUrl) return { delivered: false, skipped: 'deleted' };
  const result = await attempt(deps, alert.webhookUrl, deliveryBody(d), eventHeaders(deps, d));
  if (result.failure === undefined) return { delivered: true, status: result.status };
  if (result.refused) return { delivered: false, disabled: true, error: result.failure };
  throw deliveryFailed(`Alert ${d.alertId} webhook_url delivery of ${d.eventId}`, result.detail);
}

/**
 * An event to a settings owner's chat bridge (`clawdbot_webhook_url`), signed with the bridge's
 * secret, under a webhook's failure policy (retried with backoff, switched off after
 * MAX_CONSECUTIVE_FAILURES in a row: delivery-health.ts); dropped when the bridge is cleared or off.
 */
async function deliverToBridge(
  deps: DeliverWebhookDeps,
  d: JobData<'deliver-webhook'>,
): Promise<DeliveryResult> {
  const owner = d.bridgeOwner!;
  const bridge = await deps.models.TradingSettings.findById(owner, {
    clawdbotWebhookUrl: 1,
    clawdbotSecret: 1,
    clawdbotActive: 1,
  }).lean();
  if (!bridge?.clawdbotWebhookUrl) return { delivered: false, skipped: 'deleted' };
  if (bridge.clawdbotActive === false) return { delivered: false, skipped: 'inactive' };
  const body = deliveryBody(d);
  const headers = eventHeaders(deps, d);
  if (bridge.clawdbotSecret) sign(deps, headers, body, bridge.clawdbotSecret, clawdbotSecretContext(owner));
  const result = await attempt(deps, bridge.clawdbotWebhookUrl, body, headers);
  const receiver = { store: deps.models.TradingSettings, id: owner, paths: CLAWDBOT_HEALTH_PATHS };
  return settle(deps, receiver, result, `The clawdbot_webhook_url delivery of ${d.eventId}`);
}

/**
 * The outcome of one attempt to a receiver with a failure policy (delivery-health.ts): a delivery
 * resets its count; a failure (a URL the guard refuses included) is counted and retried with backoff
 * (thrown) until the receiver is switched off.
 */
async function settle(
  deps: DeliverWebhookDeps,
  receiver: Receiver,
  result: Awaited<ReturnType<typeof attempt>>,
  what: string,
): Promise<DeliveryResult> {
  if (result.failure === undefined) {
    await recordDelivered(receiver, deps.clock());
    return { delivered: true, status: result.status };
  }
  const counted = await recordFailure(receiver, result.failure);
  if (counted === 'inactive') return { delivered: false, skipped: 'inactive' };
  if (counted === 'switched-off') return { delivered: false, disabled: true, error: result.failure };
  throw deliveryFailed(what, result.detail);
}

/**
 * Delivers one event to one webhook (the `deliver-webhook` job), or to a price alert's own URL when
 * the job names an alert. A 2xx answer is a delivery: the
 * failure count goes back to 0 and `lastDeliveryAt` is set. Anything else (3xx included: redirects are
 * not followed) counts one consecutive failure and throws so that the job is retried with backoff;
 * the failure that reaches MAX_CONSECUTIVE_FAILURES deactivates the webhook and ends the retries.
 * At least once: a worker dying after the receiver answered sends the same event (same `id`) again.
 */
export async function deliverWebhook(
  deps: DeliverWebhookDeps,
  d: JobData<'deliver-webhook'>,
): Promise<DeliveryResult> {
  if (d.alertId) return deliverToAlert(deps, d);
  if (d.bridgeOwner) return deliverToBridge(deps, d);
  const { Webhook } = deps.models;
  const hook = await Webhook.findById(d.webhookId).lean();
  if (!hook) return { delivered: false, skipped: 'deleted' };
  if (!hook.active) return { delivered: false, skipped: 'inactive' };
  const body = deliveryBody(d);
  const headers = eventHeaders(deps, d);
  if (hook.secret) sign(deps, headers, body, hook.secret, webhookSecretContext(hook._id));
  const result = await attempt(deps, hook.url, body, headers);
  const receiver = { store: Webhook, id: hook._id, paths: WEBHOOK_HEALTH_PATHS };
  return settle(deps, receiver, result, `Webhook ${hook._id} delivery of ${d.eventId}`);
}
