import { refreshVolumes } from '../../shared/domains/markets/refresh-volumes.js';
import { snapshotPrices } from '../../shared/domains/markets/snapshot-prices.js';

import { remarkLeaderboard } from '../../shared/domains/reads/leaderboard.js';

import { settleMarket } from '../../shared/domains/settlement/settle-market.js';
import { tradeContext } from '../../shared/domains/trading/context.js';
import { executeTrade } from '../../shared/domains/trading/execute-trade.js';
import { reconcileTrades } from '../../shared/domains/trading/reconcile-trades.js';
import { settleAdmission } from '../../shared/domains/trading/trade-lifecycle.js';
import type { Processor } from '../../shared/composition/processor.js';
import { slotTime } from '../../shared/infra/queue/slots.js';

export const executeTradeProcessor: Processor<'execute-trade'> = async (data, { deps }) => {
  const result = await executeTrade(tradeContext(deps), data.tradeId);
  // Only buys take an admission; a trade the API already marked failed has no result at all.
  if (!result?.success && result?.action !== 'sell') await settleAdmission(deps, data.tradeId);
  return result;
};

export const settleMarketProcessor: Processor<'settle-market'> = async (data, { deps }) =>
  settleMarket(deps.models, data.marketId, deps.clock);

export const remarkLeaderboardProcessor: Processor<'remark-leaderboard'> = async (_data, { deps }) =>
  remarkLeaderboard(deps.models, deps.clock());

export const refreshVolumesProcessor: Processor<'refresh-volumes'> = async (_data, { deps }) =>
  refreshVolumes(deps.models, deps.clock());

export const snapshotPricesProcessor: Processor<'snapshot-prices'> = async (data, { deps }) =>
  snapshotPrices(deps.models, slotTime(data.slot));

export const reconcileTradesProcessor: Processor<'reconcile-trades'> = async (_data, { deps }) =>
  reconcileTrades(deps, deps.clock());
