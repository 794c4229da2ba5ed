import { getMarket, listMarkets } from '../../shared/domains/markets/read-markets.js';
import { publicBaseUrl } from '../../shared/infra/config/env.js';
import type { HandlersFor } from '../endpoints/endpoint.js';
import type { marketEndpoints } from '../endpoints/markets.endpoints.js';

const sourceOf = (v: string | undefined) =>
  v === 'simmer' || v === 'sandbox' ? 'sim' : (v as 'sim' | 'polymarket' | 'kalshi' | undefined);

export const marketHandlers: HandlersFor<typeof marketEndpoints> = {
  listMarkets: async ({ deps, agent, query }) => {
    const list = await listMarkets(
      deps.models,
      {
        status: query.status,
        source: sourceOf(query.venue ?? query.import_source),
        sort: query.sort,
        limit: query.limit,
        offset: query.offset,
      },
      publicBaseUrl(deps.env),
      deps.clock(),
    );
    return { ...list, agent_id: agent._id };
  },
  getMarket: async ({ deps, agent, params }) => ({
    market: await getMarket(deps.models, params.market_id, publicBaseUrl(deps.env), deps.clock()),
    agent_id: agent._id,
  }),
};
