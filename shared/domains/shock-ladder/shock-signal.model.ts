import { Schema, type Connection, type Model } from 'mongoose';
import type { SchemaRecord } from '../schema-record.js';

/** How long a shock signal is kept after it stopped being pending (its TTL index). */
export const SHOCK_SIGNAL_KEPT_SECONDS = 24 * 3600;

/** The depth percentiles of comparable past drops, in cents below the pre-shock price. */
const depthsSchema = new Schema(
  {
    p50: { type: Number, required: true },
    p75: { type: Number, required: true },
    p90: { type: Number, required: true },
    p95: { type: Number, required: true },
  },
  { _id: false },
);

/**
 * One shock queued for one agent whose shock-ladder config is enabled (`_id` =
 * `<agentId>|<signalId>`, so a shock is written once per agent whatever retries). One signal per
 * agent per shock: its `signalId` is the shock's id, and the skill deletes it by `shock_id`.
 * Pending until `expiresAt` (SHOCK_LADDER_SIGNAL_TTL_SECONDS) or deleted; the database drops it
 * SHOCK_SIGNAL_KEPT_SECONDS after `expiresAt` (TTL index).
 */
const shockSignalSchema = new Schema(
  {
    _id: { type: String, required: true },
    agentId: { type: String, required: true },
    signalId: { type: String, required: true },
    shockId: { type: String, required: true },
    marketId: { type: String, required: true },
    /** The outcome whose price fell: the ladder buys it. */
    side: { type: String, enum: ['yes', 'no'], required: true },
    /** That outcome's price before the drop (the window's highest). */
    prePrice: { type: Number, required: true },
    /** Its price when the drop was seen. */
    shockPrice: { type: Number, required: true },
    bucketKey: { type: String, required: true },
    depths: { type: depthsSchema, required: true },
    depthSource: { type: String, enum: ['tapes', 'tapes_all_bands', 'default'], required: true },
    /** Past drops the depths were computed from (0 for the default). */
    observedCount: { type: Number, required: true },
    createdAt: { type: Date, required: true },
    expiresAt: { type: Date, required: true },
    deletedAt: { type: Date, default: null },
  },
  { collection: 'shock_signals', versionKey: false },
);
shockSignalSchema.index({ agentId: 1, expiresAt: 1 });
shockSignalSchema.index({ expiresAt: 1 }, { expireAfterSeconds: SHOCK_SIGNAL_KEPT_SECONDS });

export type ShockDepthSource = 'tapes' | 'tapes_all_bands' | 'default';
export type ShockSignalRecord = SchemaRecord<
  typeof shockSignalSchema,
  { side: 'yes' | 'no'; depthSource: ShockDepthSource; deletedAt: Date | null }
>;
export type ShockSignalModel = Model<ShockSignalRecord>;

export function shockSignalModel(conn: Connection): ShockSignalModel {
  return (
    (conn.models.ShockSignal as ShockSignalModel | undefined) ??
    conn.model<ShockSignalRecord>('ShockSignal', shockSignalSchema)
  );
}
