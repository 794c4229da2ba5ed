import { listFastMarkets } from '../../shared/domains/markets/fast-markets.js';
import { priceHistory } from '../../shared/domains/markets/history.js';
import { getMarket, listMarkets, listPublicMarkets } from '../../shared/domains/markets/read-markets.js';
import { publicBaseUrl } from '../../shared/infra/config/env.js';
import type { HandlersFor } from '../endpoints/endpoint.js';
import type { marketEndpoints } from '../endpoints/markets.endpoints.js';

export const marketHandlers: HandlersFor<typeof marketEndpoints> = {
  listMarkets: async ({ deps, agent, query }) => ({
    ...(await listMarkets(deps.models, query, publicBaseUrl(deps.env), deps.clock())),
    agent_id: agent._id,
  }),
  getMarket: async ({ deps, agent, params }) => ({
    market: await getMarket(deps.models, params.market_id, publicBaseUrl(deps.env), deps.clock()),
    agent_id: agent._id,
  }),
  marketHistory: async ({ deps, params, query }) =>
    priceHistory(deps.models, params.market_id, query.hours, query.interval, deps.clock()),
  publicMarkets: async ({ deps, query }) =>
    listPublicMarkets(deps.models, query, publicBaseUrl(deps.env), deps.clock()),
  fastMarkets: async ({ deps, agent, query }) => ({
    ...(await listFastMarkets(deps.models, query, publicBaseUrl(deps.env), deps.clock())),
    agent_id: agent._id,
  }),
};
