import { refreshVolumes } from '../../shared/domains/markets/refresh-volumes.js';
import { snapshotPrices } from '../../shared/domains/markets/snapshot-prices.js';

import { remarkAllBoards } from '../../shared/domains/reads/venue-boards.js';

import { settleMarket } from '../../shared/domains/settlement/settle-market.js';
import { followVenueOrder } from '../../shared/domains/trading/venue-orders.js';
import { reconcileTrades } from '../../shared/domains/trading/reconcile-trades.js';
import { executeTrade } from '../../shared/domains/trading/execute-trade.js';
import type { Processor } from '../../shared/composition/processor.js';
import { slotTime } from '../../shared/infra/queue/slots.js';
import { emitMarketResolved } from '../../shared/domains/webhooks/events.js';
import { runAfterTradeFill } from '../../shared/composition/trade-effects.js';

export const executeTradeProcessor: Processor<'execute-trade'> = async (data, { deps }) =>
  executeTrade(deps, data.tradeId);

/**
 * A recorded fill's effects, each idempotent: the `trade.executed` event (its id is the trade's), the
 * buy's default monitor (armed once), the evaluation of the market's price alerts. The jobs a
 * process holds at once run together (shared/composition/trade-effects.ts: a few commands per batch
 * instead of six per fill).
 */
export const afterTradeFillProcessor: Processor<'after-trade-fill'> = async (data, { deps }) =>
  runAfterTradeFill(deps, data.tradeId);

export const followKalshiOrderProcessor: Processor<'follow-kalshi-order'> = async (data, { deps }) =>
  followVenueOrder(deps, data.tradeId, data.poll);

export const settleMarketProcessor: Processor<'settle-market'> = async (data, { deps }) => {
  const settled = await settleMarket(deps.models, data.marketId, deps.clock);
  await emitMarketResolved(deps, data.marketId);
  return settled;
};

/** The main board's marks, then every venue's board (reads/venue-boards.ts), at one time. */
export const remarkLeaderboardProcessor: Processor<'remark-leaderboard'> = async (_data, { deps }) =>
  remarkAllBoards(deps.models, deps.clock(), deps.env.LEADERBOARD_LINK_WINDOW_HOURS);

export const refreshVolumesProcessor: Processor<'refresh-volumes'> = async (_data, { deps }) =>
  refreshVolumes(deps.models, deps.clock());

export const snapshotPricesProcessor: Processor<'snapshot-prices'> = async (data, { deps }) =>
  snapshotPrices(deps.models, slotTime(data.slot));

export const reconcileTradesProcessor: Processor<'reconcile-trades'> = async (_data, { deps }) =>
  reconcileTrades(deps, deps.clock());
