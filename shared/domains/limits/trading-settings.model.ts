import { Schema, type Connection, type InferSchemaType, type Model } from 'mongoose';
import type { SealedSecret } from '../../infra/secrets/envelope.js';
import type { Filled, Override, SchemaRecord } from '../schema-record.js';
import { sealedSecretSchema } from '../wallets/wallet.model.js';

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
    /**
     * The agent's chat bridge (client-contract §3.3 `clawdbot_*`): its alerts and trade events are
     * also delivered there, signed with `clawdbotSecret` (sealed, context `clawdbot:<owner key>`).
     */
    clawdbotWebhookUrl: { type: String },
    clawdbotChatId: { type: String },
    clawdbotChannel: { type: String },
    clawdbotSecret: { type: sealedSecretSchema },
    /**
     * The bridge's delivery health, kept by the deliveries as a webhook's is (webhooks/delivery-health.ts):
     * switched off after MAX_CONSECUTIVE_FAILURES failures in a row; setting the URL again turns it on.
     */
    clawdbotActive: { type: Boolean },
    clawdbotConsecutiveFailures: { type: Number },
    clawdbotLastError: { type: String },
    clawdbotLastDeliveryAt: { type: Date },
    /**
     * Bumped by every change. An update is decided on the settings it read (an agent key may only
     * tighten), so it writes only while the revision is still the one it read (compare-and-set).
     */
    revision: { type: Number },
  },
  { collection: 'trading_settings', timestamps: true, versionKey: false },
);

type SettingPaths = Omit<
  InferSchemaType<typeof tradingSettingsSchema>,
  '_id' | 'createdAt' | 'updatedAt' | 'revision'
>;

/** Every safeguard with its value: the owner's stored ones over DEFAULT_TRADING_SETTINGS. */
export type TradingSettings = Override<
  Filled<SettingPaths>,
  // `null` is a value of these: no stop loss, no take profit, no wallet, no chat bridge.
  {
    defaultStopLossPct: number | null;
    defaultTakeProfitPct: number | null;
    solanaWalletAddress: string | null;
    clawdbotWebhookUrl: string | null;
    clawdbotChatId: string | null;
    clawdbotChannel: string | null;
    clawdbotSecret: SealedSecret | null;
    clawdbotLastError: string | null;
    clawdbotLastDeliveryAt: Date | null;
  }
>;

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
  clawdbotWebhookUrl: null,
  clawdbotChatId: null,
  clawdbotChannel: null,
  clawdbotSecret: null,
  clawdbotActive: true,
  clawdbotConsecutiveFailures: 0,
  clawdbotLastError: null,
  clawdbotLastDeliveryAt: null,
};

/** Where the bridge's delivery health lives in the owner's settings document (webhooks/delivery-health.ts). */
export const CLAWDBOT_HEALTH_PATHS = {
  active: 'clawdbotActive',
  consecutiveFailures: 'clawdbotConsecutiveFailures',
  lastError: 'clawdbotLastError',
  lastDeliveryAt: 'clawdbotLastDeliveryAt',
} as const;

/** The bridge's health as it starts: on, with no failures (its defaults). */
export const clawdbotHealthReset = () =>
  Object.fromEntries(
    Object.values(CLAWDBOT_HEALTH_PATHS).map((path) => [path, DEFAULT_TRADING_SETTINGS[path]]),
  ) as Pick<TradingSettings, (typeof CLAWDBOT_HEALTH_PATHS)[keyof typeof CLAWDBOT_HEALTH_PATHS]>;

export const clawdbotSecretContext = (ownerKey: string) => `clawdbot:${ownerKey}`;

/** `trading_paused`: the kill switch is on if either hand turned it on. */
export const isPaused = (s: TradingSettings) => s.pausedByUser || s.pausedByAgent;

// No path has a default: a document holds only the settings its owner set.
export type TradingSettingsRecord = SchemaRecord<
  typeof tradingSettingsSchema,
  Partial<TradingSettings> & { revision?: number }
>;
export type TradingSettingsModel = Model<TradingSettingsRecord>;

export function tradingSettingsModel(conn: Connection): TradingSettingsModel {
  return (
    (conn.models.TradingSettings as TradingSettingsModel | undefined) ??
    conn.model<TradingSettingsRecord>('TradingSettings', tradingSettingsSchema)
  );
}
