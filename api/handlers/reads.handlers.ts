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
};
