import { resolveMarket } from '../../shared/domains/markets/resolve-market.js';
import { fromMicro } from '../../shared/domains/money.js';
import type { adminEndpoints } from '../endpoints/admin.endpoints.js';
import type { HandlersFor } from '../endpoints/endpoint.js';

/** How long the operator call waits for settlement before answering "queued". */
const SETTLEMENT_WAIT_MS = 10_000;

export const adminHandlers: HandlersFor<typeof adminEndpoints> = {
  resolveMarket: async ({ deps, params, body }) => {
    const resolved = await resolveMarket(deps.models, params.market_id, body.outcome, deps.clock);
    const outcome = await deps.queues.enqueueAndWait<{ positions: number; payoutMicro: number }>(
      'settle-market',
      { marketId: params.market_id },
      SETTLEMENT_WAIT_MS,
    );
    const settlement =
      outcome.state === 'completed'
        ? {
            state: 'completed' as const,
            positions: outcome.result.positions,
            payout: fromMicro(outcome.result.payoutMicro),
            job_id: outcome.jobId,
          }
        : { state: 'queued' as const, job_id: outcome.jobId };
    return { ...resolved, settlement };
  },
};
