import { secondsToUtcMidnight } from '../../shared/domains/limits/daily-quota.js';
import { versionCheck } from '../../shared/domains/system/version-check.js';
import { checkReadiness, type CheckResult } from '../../shared/domains/system/readiness.js';
import { liveness } from '../../shared/composition/liveness.js';
import type { systemEndpoints } from '../endpoints/system.endpoints.js';
import type { HandlersFor } from '../endpoints/endpoint.js';
import { API_VERSION, getOpenApiDocument } from '../openapi.js';

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

  live: async ({ deps, res }) => {
    const status = liveness(deps.infra);
    if (status === 'down') res.status(503);
    return { status };
  },

  ready: async ({ deps, req, res }) => {
    const { ok, checks, schedulerLastHeartbeat } = await checkReadiness(deps);
    if (!ok) res.status(503);
    const state = (check: CheckResult) => (check.ok ? 'ok' : 'down');
    return {
      status: ok ? 'ok' : 'unavailable',
      checks: { mongodb: state(checks.mongodb), redis: state(checks.redis), queue: state(checks.queue) },
      ...(req.operator
        ? {
            details: {
              ...checks,
              scheduler_last_heartbeat: schedulerLastHeartbeat?.toISOString() ?? null,
            },
          }
        : {}),
    };
  },

  metrics: async ({ deps, res }) => {
    res.type(deps.metrics.registry.contentType);
    return deps.metrics.registry.metrics();
  },

  openapi: async ({ deps }) => getOpenApiDocument(deps.env) as unknown as Record<string, unknown>,
};
