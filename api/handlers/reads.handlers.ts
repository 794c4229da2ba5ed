import { briefing } from '../../shared/domains/reads/briefing.js';
import { marketContext } from '../../shared/domains/reads/context.js';
import { claimUrlFor } from '../../shared/domains/trading/context.js';
import { publicBaseUrl } from '../../shared/infra/config/env.js';
import type { HandlersFor } from '../endpoints/endpoint.js';
import type { readEndpoints } from '../endpoints/reads.endpoints.js';

export const readHandlers: HandlersFor<typeof readEndpoints> = {
  context: async ({ deps, agent, params, query }) => {
    const baseUrl = publicBaseUrl(deps.env);
    return marketContext(deps.models, agent.toObject(), params.market_id, {
      venue: query.venue,
      myProbability: query.my_probability,
      baseUrl,
      claimUrl: agent.claimedBy ? null : claimUrlFor(baseUrl)(agent.claimCode),
      now: deps.clock(),
    });
  },
  briefing: async ({ deps, agent, query }) => {
    const now = deps.clock();
    const since = query.since ? new Date(query.since) : new Date(now.getTime() - 24 * 3600_000);
    return briefing(deps.models, agent.toObject(), { since, now, baseUrl: publicBaseUrl(deps.env) });
  },
};
