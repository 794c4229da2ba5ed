import { Schema, type Connection, type Model } from 'mongoose';

/**
 * The trading safeguards of one settings owner: a user (`user:<id>`, shared by all of the user's
 * agents) or an unclaimed agent (`agent:<id>`, its own until a human claims it). No document means
 * every value is the default (DEFAULT_TRADING_SETTINGS).
 */
const tradingSettingsSchema = new Schema(
  {
    _id: { type: String, required: true },
    maxTradesPerDay: { type: Number },
    sdkRealTradingEnabled: { type: Boolean },
    sdkMaxTradeMicro: { type: Number },
    sdkDailyLimitMicro: { type: Number },
    maxPositionMicro: { type: Number },
    /** The kill switch, one flag per hand on it: an agent key cannot lift its human's pause. */
    pausedByUser: { type: Boolean },
    pausedByAgent: { type: Boolean },
    autoRiskMonitorEnabled: { type: Boolean },
    defaultStopLossPct: { type: Number },
    defaultTakeProfitPct: { type: Number },
    solanaWalletAddress: { type: String },
  },
  { collection: 'trading_settings', timestamps: true, versionKey: false },
);

export interface TradingSettings {
  maxTradesPerDay: number;
  sdkRealTradingEnabled: boolean;
  sdkMaxTradeMicro: number;
  sdkDailyLimitMicro: number;
  maxPositionMicro: number;
  pausedByUser: boolean;
  pausedByAgent: boolean;
  autoRiskMonitorEnabled: boolean;
  defaultStopLossPct: number | null;
  defaultTakeProfitPct: number | null;
  solanaWalletAddress: string | null;
}

/** client-contract §3.3 and §4.5: the values a new owner starts with. */
export const DEFAULT_TRADING_SETTINGS: TradingSettings = {
  maxTradesPerDay: 50,
  sdkRealTradingEnabled: true,
  sdkMaxTradeMicro: 100_000_000,
  sdkDailyLimitMicro: 500_000_000,
  maxPositionMicro: 100_000_000,
  pausedByUser: false,
  pausedByAgent: false,
  autoRiskMonitorEnabled: true,
  defaultStopLossPct: 0.5,
  defaultTakeProfitPct: null,
  solanaWalletAddress: null,
};

/** `trading_paused`: the kill switch is on if either hand turned it on. */
export const isPaused = (s: TradingSettings) => s.pausedByUser || s.pausedByAgent;

export type TradingSettingsRecord = Partial<TradingSettings> & { _id: string };
export type TradingSettingsModel = Model<TradingSettingsRecord>;

export function tradingSettingsModel(conn: Connection): TradingSettingsModel {
  return (
    (conn.models.TradingSettings as TradingSettingsModel | undefined) ??
    conn.model<TradingSettingsRecord>('TradingSettings', tradingSettingsSchema)
  );
}
