import { submitBatch } from '../../shared/domains/trading/submit-batch.js';
import { agentWalletCash } from '../../shared/domains/trading/wallet-cash.js';
import { venueFilter } from '../../shared/domains/trading/reads.schemas.js';
import { listPositions, listTrades, portfolio } from '../../shared/domains/trading/reads.js';
import { submitTrade } from '../../shared/domains/trading/submit-trade.js';
import { cancelOrders, listOpenOrders } from '../../shared/domains/trading/venue-orders.js';
import type { HandlersFor } from '../endpoints/endpoint.js';
import type { tradingEndpoints } from '../endpoints/trading.endpoints.js';

export const tradingHandlers: HandlersFor<typeof tradingEndpoints> = {
  trade: async ({ deps, agent, body }) => submitTrade(deps, agent, body),
  batchTrades: async ({ deps, agent, body }) => submitBatch(deps, agent, body),
  listTrades: async ({ deps, agent, query }) => listTrades(deps.models, agent, query),
  listPositions: async ({ deps, agent, query }) => listPositions(deps.models, agent, query),
  openOrders: async ({ deps, agent }) => listOpenOrders(deps, agent),
  cancelOrder: async ({ deps, agent, params }) => cancelOrders(deps, agent, { orderId: params.order_id }),
  cancelMarketOrders: async ({ deps, agent, params, query }) =>
    cancelOrders(deps, agent, { marketId: params.market_id, side: query.side }),
  cancelAllOrders: async ({ deps, agent }) => cancelOrders(deps, agent, {}),
  portfolio: async ({ deps, agent, query }) => {
    const venue = venueFilter(query.venue);
    const cash = await agentWalletCash(deps, agent, venue ? [venue] : undefined);
    return portfolio(deps.models, agent, query, deps.clock(), cash);
  },
};
