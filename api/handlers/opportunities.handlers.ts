import { rankedOpportunities, selectOpportunities } from '../../shared/domains/markets/opportunities.js';
import type { HandlersFor } from '../endpoints/endpoint.js';
import type { opportunityEndpoints } from '../endpoints/opportunities.endpoints.js';
import { sharedRead } from '../http/shared-read.js';

export const opportunityHandlers: HandlersFor<typeof opportunityEndpoints> = {
  // One ranking shared by every agent and every limit/min_divergence: the filter is cut from it.
  marketOpportunities: async ({ deps, agent, query }) => {
    const ranked = await sharedRead(deps, 'market-opportunities', {}, () => rankedOpportunities(deps.models));
    return { opportunities: selectOpportunities(ranked, query), agent_id: agent._id };
  },
};
