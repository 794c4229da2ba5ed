import { refreshVolumes } from '../../shared/domains/markets/refresh-volumes.js';
import { snapshotPrices } from '../../shared/domains/markets/snapshot-prices.js';

import { remarkLeaderboard } from '../../shared/domains/reads/leaderboard.js';
import { remarkVenueBoards } from '../../shared/domains/reads/venue-boards.js';

import { settleMarket } from '../../shared/domains/settlement/settle-market.js';
import { followVenueOrder } from '../../shared/domains/trading/venue-orders.js';
import { reconcileTrades } from '../../shared/domains/trading/reconcile-trades.js';
import { settleAdmission } from '../../shared/domains/trading/trade-lifecycle.js';
import { executeRecordedTrade } from '../../shared/composition/trade-execution.js';
import type { Processor } from '../../shared/composition/processor.js';
import { slotTime } from '../../shared/infra/queue/slots.js';
import {
  announceTradeExecuted,
  emitMarketResolved,
  filledTrade,
} from '../../shared/domains/webhooks/events.js';
import { protectFilledBuy } from '../../shared/domains/monitors/monitors.js';
import { enqueueAlertEvaluation } from '../../shared/domains/alerts/evaluate-price-alerts.js';

export const executeTradeProcessor: Processor<'execute-trade'> = async (data, { deps }) => {
  const result = await executeRecordedTrade(deps, data.tradeId);
  // Only buys take an admission; a trade the API already marked failed has no result at all.
  if (!result?.success && result?.action !== 'sell') await settleAdmission(deps, data.tradeId);
  // What follows the fill runs off the answer's path; a retried job enqueues the same id, which queues nothing.
  if (result?.success) await deps.queues.enqueue('after-trade-fill', { tradeId: data.tradeId });
  return result;
};

/**
 * A recorded fill's effects, each idempotent: the `trade.executed` event (its id is the trade's), the
 * buy's default monitor (armed once), the evaluation of the market's price alerts (job id per trade).
 */
export const afterTradeFillProcessor: Processor<'after-trade-fill'> = async (data, { deps }) => {
  const filled = await filledTrade(deps, data.tradeId);
  if (!filled) return { trade_id: data.tradeId, filled: false };
  const [announced, armed] = await Promise.all([
    announceTradeExecuted(deps, filled),
    // A buy is protected by the owner's default stop-loss / take-profit (auto_risk_monitor_enabled).
    protectFilledBuy(deps, filled),
    // The fill moved the market's price.
    enqueueAlertEvaluation(deps, filled.marketId, `trade-${data.tradeId}`),
  ]);
  return { trade_id: data.tradeId, filled: true, webhooks: announced.queued, monitor_armed: armed };
};

export const followKalshiOrderProcessor: Processor<'follow-kalshi-order'> = async (data, { deps }) =>
  followVenueOrder(deps, data.tradeId, data.poll);

export const settleMarketProcessor: Processor<'settle-market'> = async (data, { deps }) => {
  const settled = await settleMarket(deps.models, data.marketId, deps.clock);
  await emitMarketResolved(deps, data.marketId);
  return settled;
};

/** The main board's marks, then every venue's board (reads/venue-boards.ts), at one time. */
export const remarkLeaderboardProcessor: Processor<'remark-leaderboard'> = async (_data, { deps }) => {
  const now = deps.clock();
  const window = deps.env.LEADERBOARD_LINK_WINDOW_HOURS;
  return {
    ...(await remarkLeaderboard(deps.models, now, window)),
    venues: await remarkVenueBoards(deps.models, now, window),
  };
};

export const refreshVolumesProcessor: Processor<'refresh-volumes'> = async (_data, { deps }) =>
  refreshVolumes(deps.models, deps.clock());

export const snapshotPricesProcessor: Processor<'snapshot-prices'> = async (data, { deps }) =>
  snapshotPrices(deps.models, slotTime(data.slot));

export const reconcileTradesProcessor: Processor<'reconcile-trades'> = async (_data, { deps }) =>
  reconcileTrades(deps, deps.clock());
