import type { Connection } from 'mongoose';
import { agentModel } from './agents/agent.model.js';
import { ledgerEntryModel } from './ledger/ledger-entry.model.js';
import { marketEventModel } from './markets/market-event.model.js';
import { marketModel } from './markets/market.model.js';
import { pricePointModel } from './markets/price-point.model.js';
import { positionModel } from './positions/position.model.js';

import { tradeModel } from './trading/trade.model.js';
import { userModel } from './users/user.model.js';
import { tradingSettingsModel } from './limits/trading-settings.model.js';
import { skillModel } from './skills/skill.model.js';
import { marketImportModel } from './imports/market-import.model.js';
import { walletModel } from './wallets/wallet.model.js';
import { agentWalletModel } from './wallets/agent-wallet.model.js';
import { txBroadcastModel } from './wallets/broadcast.model.js';
import { redemptionModel } from './wallets/redemption.model.js';

import { heartbeatModel } from './system/heartbeat.model.js';
import { leaderboardMetaModel } from './system/leaderboard-meta.model.js';
import { venueStandingModel } from './system/venue-standing.model.js';
import { venueTallyModel } from './system/venue-tally.model.js';
import { scheduleRunModel } from './system/schedule-run.model.js';
import { webhookModel } from './webhooks/webhook.model.js';
import { priceAlertModel } from './alerts/price-alert.model.js';
import { positionMonitorModel } from './monitors/position-monitor.model.js';
import { riskAlertModel } from './monitors/risk-alert.model.js';
import { operatorActionModel } from './operator/operator-action.model.js';
import { tapeCursorModel, tapeRecorderModel } from './tapes/tape-cursor.model.js';
import { candleModel } from './candles/candle.model.js';
import { experimentModel } from './research/experiment.model.js';
import { automatonModel } from './automaton/automaton.model.js';
import { automatonCycleModel } from './automaton/automaton-cycle.model.js';
import { venueFillModel } from './fill-feed/venue-fill.model.js';
import { fillFeedCursorModel } from './fill-feed/fill-feed-cursor.model.js';
import { reactorConfigModel } from './reactor/reactor-config.model.js';
import { reactorSignalModel } from './reactor/reactor-signal.model.js';
import { reactorReactionModel } from './reactor/reactor-reaction.model.js';
import { shockLadderConfigModel } from './shock-ladder/shock-ladder-config.model.js';
import { shockSignalModel } from './shock-ladder/shock-signal.model.js';
import { copyLeadersModel } from './copytrading/copy-leaders/copy-leaders.model.js';

/** Every mongoose model, bound to one connection (tests and processes each own a connection). */
export function createModels(conn: Connection) {
  return {
    Agent: agentModel(conn),
    Market: marketModel(conn),
    MarketEvent: marketEventModel(conn),
    LedgerEntry: ledgerEntryModel(conn),
    Position: positionModel(conn),
    PricePoint: pricePointModel(conn),

    Trade: tradeModel(conn),
    User: userModel(conn),
    TradingSettings: tradingSettingsModel(conn),
    Skill: skillModel(conn),
    MarketImport: marketImportModel(conn),
    Wallet: walletModel(conn),
    AgentWallet: agentWalletModel(conn),
    TxBroadcast: txBroadcastModel(conn),
    Redemption: redemptionModel(conn),

    Heartbeat: heartbeatModel(conn),
    LeaderboardMeta: leaderboardMetaModel(conn),
    VenueStanding: venueStandingModel(conn),
    VenueTally: venueTallyModel(conn),
    ScheduleRun: scheduleRunModel(conn),
    Webhook: webhookModel(conn),
    PriceAlert: priceAlertModel(conn),
    PositionMonitor: positionMonitorModel(conn),
    RiskAlert: riskAlertModel(conn),
    OperatorAction: operatorActionModel(conn),
    TapeCursor: tapeCursorModel(conn),
    TapeRecorder: tapeRecorderModel(conn),
    Candle: candleModel(conn),
    ResearchExperiment: experimentModel(conn),
    Automaton: automatonModel(conn),
    AutomatonCycle: automatonCycleModel(conn),
    VenueFill: venueFillModel(conn),
    FillFeedCursor: fillFeedCursorModel(conn),
    ReactorConfig: reactorConfigModel(conn),
    ReactorSignal: reactorSignalModel(conn),
    ReactorReaction: reactorReactionModel(conn),
    ShockLadderConfig: shockLadderConfigModel(conn),
    ShockSignal: shockSignalModel(conn),
    CopyLeaders: copyLeadersModel(conn),
  };
}
export type Models = ReturnType<typeof createModels>;

/**
 * Indexes only the development database needs. mongo-java-server answers a query from an index only
 * when the query's fields are exactly the index's fields, so every guarded write of the money path
 * (`{_id, ledgerSeq}`, `{_id, status}`, …) would scan its whole collection there: a trade got slower
 * with every market and agent added. MongoDB's planner serves these filters from the `_id` index
 * (and the last one from `{agentId, marketId, createdAt}`), so they are not created on it (they
 * would only cost writes).
 */
const DEV_DATABASE_INDEXES: { model: keyof Models; key: Record<string, 1>; unique: boolean }[] = [
  { model: 'Trade', key: { _id: 1, status: 1 }, unique: true },
  { model: 'Agent', key: { _id: 1, ledgerSeq: 1 }, unique: true },
  { model: 'Market', key: { _id: 1, 'book.version': 1 }, unique: true },
  { model: 'Position', key: { _id: 1, appliedSeq: 1 }, unique: true },
  // An agent's filled trades on one market (the trade context).
  { model: 'Trade', key: { agentId: 1, marketId: 1, status: 1 }, unique: false },
  { model: 'Wallet', key: { _id: 1, version: 1 }, unique: true },
  // A venue board's rows (reads/venue-boards.ts): served, then sorted, from the venue's rows alone.
  { model: 'VenueStanding', key: { venue: 1 }, unique: false },
  // The open imported markets of one venue (markets/opportunities.ts).
  { model: 'Market', key: { importSource: 1, status: 1 }, unique: false },
];

/** mongo-java-server's buildInfo is a version alone; every MongoDB server names its git commit. */
async function isMongoJavaServer(conn: Connection): Promise<boolean> {
  const info = await conn.db!.admin().command({ buildInfo: 1 });
  return !('gitVersion' in info);
}

/** Creates the declared indexes; run once at start so unique constraints hold before the first write. */
export async function ensureIndexes(models: Models): Promise<void> {
  for (const model of Object.values(models)) await model.createIndexes();
  if (!(await isMongoJavaServer(models.Trade.db))) return;
  for (const { model, key, unique } of DEV_DATABASE_INDEXES)
    await models[model].collection.createIndex(key, { unique, name: `dev_${Object.keys(key).join('_')}` });
}
