import type { ProcessorRegistry } from '../shared/composition/processor.js';
import {
  backfillPositionHoldersProcessor,
  ping,
  reconcileAgentSlotsProcessor,
  recordHeartbeatProcessor,
} from './processors/system.processors.js';
import {
  executeTradeProcessor,
  afterTradeFillProcessor,
  followKalshiOrderProcessor,
  reconcileTradesProcessor,
  refreshVolumesProcessor,
  remarkLeaderboardProcessor,
  settleMarketProcessor,
  snapshotPricesProcessor,
} from './processors/trading.processors.js';
import {
  checkResolutionsProcessor,
  expireSimMarketsProcessor,
  importFastMarketsProcessor,
  importMarketsProcessor,
  syncExternalPricesProcessor,
  syncVenueOrdersProcessor,
} from './processors/venue.processors.js';
import { broadcastTxProcessor, followTxReceiptProcessor } from './processors/broadcast.processors.js';
import { autoRedeemProcessor, redeemPositionProcessor } from './processors/redemption.processors.js';
import { deliverWebhookProcessor, evaluatePriceAlertsProcessor } from './processors/webhook.processors.js';
import {
  evaluatePositionMonitorsProcessor,
  exitMonitoredPositionProcessor,
} from './processors/monitor.processors.js';
import { recordTapesProcessor, sliceTapeProcessor } from './processors/tape.processors.js';
import { recordCandlesProcessor } from './processors/candle.processors.js';
import { reactToFillsProcessor, withdrawFillsProcessor } from './processors/reactor.processors.js';
import { refreshCopyLeadersProcessor } from './processors/copy-leaders.processors.js';

/** Every job name → its processor. The type makes a missing processor a compile error. */
export const PROCESSORS: ProcessorRegistry = {
  ping,
  'record-heartbeat': recordHeartbeatProcessor,
  'reconcile-agent-slots': reconcileAgentSlotsProcessor,
  'backfill-position-holders': backfillPositionHoldersProcessor,
  'execute-trade': executeTradeProcessor,
  'after-trade-fill': afterTradeFillProcessor,
  'follow-kalshi-order': followKalshiOrderProcessor,
  'reconcile-trades': reconcileTradesProcessor,
  'settle-market': settleMarketProcessor,
  'remark-leaderboard': remarkLeaderboardProcessor,
  'refresh-volumes': refreshVolumesProcessor,
  'snapshot-prices': snapshotPricesProcessor,
  'import-markets': importMarketsProcessor,
  'sync-external-prices': syncExternalPricesProcessor,
  'sync-venue-orders': syncVenueOrdersProcessor,
  'check-resolutions': checkResolutionsProcessor,
  'import-fast-markets': importFastMarketsProcessor,
  'expire-sim-markets': expireSimMarketsProcessor,
  'broadcast-tx': broadcastTxProcessor,
  'follow-tx-receipt': followTxReceiptProcessor,
  'redeem-position': redeemPositionProcessor,
  'auto-redeem': autoRedeemProcessor,
  'deliver-webhook': deliverWebhookProcessor,
  'evaluate-price-alerts': evaluatePriceAlertsProcessor,
  'evaluate-position-monitors': evaluatePositionMonitorsProcessor,
  'record-tapes': recordTapesProcessor,
  'slice-tape': sliceTapeProcessor,
  'exit-monitored-position': exitMonitoredPositionProcessor,
  'record-candles': recordCandlesProcessor,
  'react-to-fills': reactToFillsProcessor,
  'withdraw-fills': withdrawFillsProcessor,
  'refresh-copy-leaders': refreshCopyLeadersProcessor,
};
