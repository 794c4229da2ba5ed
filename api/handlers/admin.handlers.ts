import { auditLedger } from '../../shared/domains/audit/audit.js';
import { SCHEDULES } from '../../jobs/schedules.js';
import { API_ACTOR, recentOperatorActions } from '../../shared/domains/operator/record-action.js';
import {
  listSchedules,
  runScheduleNow,
  setSchedulePaused,
} from '../../shared/domains/schedules/schedule-admin.js';
import { venueHealth } from '../../shared/domains/venues/venue-health.js';
import { resolveAndSettle } from '../../shared/domains/settlement/resolve-and-settle.js';
import type { adminEndpoints } from '../endpoints/admin.endpoints.js';
import type { HandlersFor } from '../endpoints/endpoint.js';

/** How long the operator call waits for settlement before answering "queued". */
export const SETTLEMENT_WAIT_MS = 10_000;

export const adminHandlers: HandlersFor<typeof adminEndpoints> = {
  resolveMarket: async ({ deps, params, body }) =>
    resolveAndSettle(deps, params.market_id, body.outcome, { waitMs: SETTLEMENT_WAIT_MS }),
  venues: async ({ deps }) => venueHealth(deps),
  audit: async ({ deps, query }) => {
    const { differenceCount, tookMs, ...report } = await auditLedger(deps.models, {
      maxDifferences: query.max_differences,
    });
    return { ...report, difference_count: differenceCount, took_ms: tookMs };
  },
  // JSON callers authenticate with the Bearer token: the audit trail names them `api`.
  schedules: async ({ deps }) => ({
    schedules: await listSchedules(deps, SCHEDULES),
    actions: await recentOperatorActions(deps.models, { limit: 50, actionPrefix: 'schedule.' }),
  }),
  pauseSchedule: async ({ deps, params }) => setSchedulePaused(deps, SCHEDULES, params.name, true, API_ACTOR),
  resumeSchedule: async ({ deps, params }) =>
    setSchedulePaused(deps, SCHEDULES, params.name, false, API_ACTOR),
  runSchedule: async ({ deps, params }) => runScheduleNow(deps, SCHEDULES, params.name, API_ACTOR),
};
