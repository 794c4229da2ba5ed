import { secondsToUtcMidnight } from '../../shared/domains/limits/daily-quota.js';
import { versionCheck } from '../../shared/domains/system/version-check.js';
import { randomBytes } from 'node:crypto';
import { lastHeartbeat } from '../../shared/domains/system/heartbeat.js';
import { pingMongo } from '../../shared/infra/mongo.js';
import type { systemEndpoints } from '../endpoints/system.endpoints.js';
import type { HandlersFor } from '../endpoints/endpoint.js';
import { API_VERSION, getOpenApiDocument } from '../openapi.js';

async function timed(check: () => Promise<unknown>) {
  const started = performance.now();
  try {
    await check();
    return { ok: true, latency_ms: Math.round(performance.now() - started) };
  } catch (err) {
    return {
      ok: false,
      latency_ms: Math.round(performance.now() - started),
      error: err instanceof Error ? err.message : String(err),
    };
  }
}

export const systemHandlers: HandlersFor<typeof systemEndpoints> = {
  x402Import: async ({ deps, res }) => {
    const now = deps.clock();
    const resetsAt = new Date(now.getTime() + secondsToUtcMidnight(now) * 1000).toISOString();
    const message = 'Pay-per-import (x402) is not offered by this deployment';
    res.status(402);
    return {
      detail: message,
      error: message,
      fix: `New imports resume when the daily quota resets at ${resetsAt}; re-importing markets already here is free, and a higher tier raises the quota.`,
      resets_at: resetsAt,
    };
  },
  versionCheck: async ({ deps, query }) => versionCheck(deps.env, query.sdk_version),
  sdkHealth: async ({ deps }) => ({
    status: 'ok',
    timestamp: deps.clock().toISOString(),
    version: API_VERSION,
  }),

  live: async () => ({ status: 'ok' }),

  ready: async ({ deps, res }) => {
    const [mongodb, redis, queue] = await Promise.all([
      timed(() => pingMongo(deps.mongo)),
      timed(() => deps.redis.ping()),
      timed(async () => {
        const nonce = randomBytes(12).toString('base64url');
        const outcome = await deps.queues.enqueueAndWait('ping', { nonce }, deps.env.READY_TIMEOUT_MS);
        if (outcome.state === 'pending')
          throw new Error(
            `no worker answered within ${deps.env.READY_TIMEOUT_MS} ms (is a worker consuming the system queue?)`,
          );
        if (outcome.state === 'failed') throw new Error(outcome.reason);
      }),
    ]);
    const heartbeat = await lastHeartbeat(deps.models.Heartbeat, 'scheduler').catch(() => null);
    const ok = mongodb.ok && redis.ok && queue.ok;
    if (!ok) res.status(503);
    return {
      status: ok ? 'ok' : 'unavailable',
      checks: { mongodb, redis, queue },
      scheduler_last_heartbeat: heartbeat?.processedAt ? heartbeat.processedAt.toISOString() : null,
    };
  },

  metrics: async ({ deps, res }) => {
    res.type(deps.metrics.registry.contentType);
    return deps.metrics.registry.metrics();
  },

  openapi: async ({ deps }) => getOpenApiDocument(deps.env) as unknown as Record<string, unknown>,
};
