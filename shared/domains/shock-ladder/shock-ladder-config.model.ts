import { Schema, type Connection, type Model } from 'mongoose';
import type { SchemaRecord } from '../schema-record.js';

/**
 * An agent's shock-ladder opt-in (`_id` = the agent id): while `enabled`, every shock the detector
 * finds on a live imported sports market is queued on the agent's Reactor feed. No document: off.
 */
const shockLadderConfigSchema = new Schema(
  {
    _id: { type: String, required: true },
    enabled: { type: Boolean, required: true },
    updatedAt: { type: Date, required: true },
  },
  { collection: 'shock_ladder_configs', versionKey: false },
);
shockLadderConfigSchema.index({ enabled: 1 });

export type ShockLadderConfigRecord = SchemaRecord<typeof shockLadderConfigSchema>;
export type ShockLadderConfigModel = Model<ShockLadderConfigRecord>;

export function shockLadderConfigModel(conn: Connection): ShockLadderConfigModel {
  return (
    (conn.models.ShockLadderConfig as ShockLadderConfigModel | undefined) ??
    conn.model<ShockLadderConfigRecord>('ShockLadderConfig', shockLadderConfigSchema)
  );
}
