import { auditLedger } from '../../shared/domains/audit/audit.js';
import { SCHEDULES } from '../../shared/domains/schedules/schedule-table.js';
import { operatorActions } from '../../shared/domains/operator/operator-actions.js';
import { API_ACTOR, recentOperatorActions } from '../../shared/domains/operator/record-action.js';
import { listSchedules } from '../../shared/domains/schedules/schedule-admin.js';
import { outsideHostHealth } from '../../shared/composition/host-health.js';
import { overdueSettlements } from '../../shared/domains/trading/venue-settlement.js';
import { fillFeedStatus } from '../../shared/domains/fill-feed/fill-feed-status.js';
import type { adminEndpoints } from '../endpoints/admin.endpoints.js';
import type { HandlersFor } from '../endpoints/endpoint.js';

export const adminHandlers: HandlersFor<typeof adminEndpoints> = {
  // JSON callers authenticate with the Bearer token: the audit trail names them `api`.
  resolveMarket: async ({ deps, params, body }) =>
    operatorActions.resolveMarket(deps, API_ACTOR, params.market_id, body.outcome),
  venues: async ({ deps }) => outsideHostHealth(deps),
  fillFeed: async ({ deps }) => fillFeedStatus(deps),
  settlements: async ({ deps }) => overdueSettlements(deps),
  audit: async ({ deps, query }) => {
    const { differenceCount, tookMs, house, ...report } = await auditLedger(deps.models, {
      maxDifferences: query.max_differences,
    });
    return {
      ...report,
      house: { fills: house.fills, dust_micro: house.dustMicro },
      difference_count: differenceCount,
      took_ms: tookMs,
    };
  },
  schedules: async ({ deps }) => ({
    schedules: await listSchedules(deps, SCHEDULES),
    actions: await recentOperatorActions(deps.models, { limit: 50, actionPrefix: 'schedule.' }),
  }),
  pauseSchedule: async ({ deps, params }) =>
    operatorActions.setSchedulePaused(deps, API_ACTOR, SCHEDULES, params.name, true),
  resumeSchedule: async ({ deps, params }) =>
    operatorActions.setSchedulePaused(deps, API_ACTOR, SCHEDULES, params.name, false),
  runSchedule: async ({ deps, params }) =>
    operatorActions.runSchedule(deps, API_ACTOR, SCHEDULES, params.name),
};
