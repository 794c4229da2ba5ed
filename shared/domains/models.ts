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

import { heartbeatModel } from './system/heartbeat.model.js';
import { leaderboardMetaModel } from './system/leaderboard-meta.model.js';
import { scheduleRunModel } from './system/schedule-run.model.js';

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

    Heartbeat: heartbeatModel(conn),
    LeaderboardMeta: leaderboardMetaModel(conn),
    ScheduleRun: scheduleRunModel(conn),
  };
}
export type Models = ReturnType<typeof createModels>;

/** Creates the declared indexes; run once at start so unique constraints hold before the first write. */
export async function ensureIndexes(models: Models): Promise<void> {
  for (const model of Object.values(models)) await model.createIndexes();
}
