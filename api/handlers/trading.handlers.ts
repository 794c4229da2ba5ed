import { listPositions, listTrades, portfolio } from '../../shared/domains/trading/reads.js';
import { submitTrade } from '../../shared/domains/trading/submit-trade.js';
import type { HandlersFor } from '../endpoints/endpoint.js';
import type { tradingEndpoints } from '../endpoints/trading.endpoints.js';

export const tradingHandlers: HandlersFor<typeof tradingEndpoints> = {
  trade: async ({ deps, agent, body }) => submitTrade(deps, agent, body),
  listTrades: async ({ deps, agent, query }) => listTrades(deps.models, agent, query),
  listPositions: async ({ deps, agent, query }) => listPositions(deps.models, agent, query),
  portfolio: async ({ deps, agent, query }) => portfolio(deps.models, agent, query, deps.clock()),
};
