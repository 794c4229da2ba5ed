import { auditLedger } from '../../shared/domains/audit/audit.js';
import { resolveAndSettle } from '../../shared/domains/settlement/resolve-and-settle.js';
import type { adminEndpoints } from '../endpoints/admin.endpoints.js';
import type { HandlersFor } from '../endpoints/endpoint.js';

/** How long the operator call waits for settlement before answering "queued". */
const SETTLEMENT_WAIT_MS = 10_000;

export const adminHandlers: HandlersFor<typeof adminEndpoints> = {
  resolveMarket: async ({ deps, params, body }) =>
    resolveAndSettle(deps, params.market_id, body.outcome, { waitMs: SETTLEMENT_WAIT_MS }),
  venues: async ({ deps }) => ({
    venues: deps.venues.all().map((v) => ({
      venue: v.id,
      hosts: v.health().map(({ venue: _venue, ...host }) => host),
    })),
    mode: deps.env.VENUES,
  }),
  audit: async ({ deps, query }) => {
    const { differenceCount, tookMs, ...report } = await auditLedger(deps.models, {
      maxDifferences: query.max_differences,
    });
    return { ...report, difference_count: differenceCount, took_ms: tookMs };
  },
};
