import { Schema, type Connection, type Model } from 'mongoose';
import type { SchemaRecord } from '../schema-record.js';

/**
 * Scheduled price snapshots (one per market per 15-minute slot), kept 8 days: history longer than
 * the spec's 7-day maximum is never asked for. They sit beside the market's event log, which holds
 * every price change itself; a snapshot anchors a chart where the log is quiet.
 */
const pricePointSchema = new Schema(
  {
    _id: { type: String, required: true },
    marketId: { type: String, required: true },
    at: { type: Date, required: true },
    priceYes: { type: Number, required: true },
  },
  { collection: 'price_points', versionKey: false },
);
pricePointSchema.index({ marketId: 1, at: 1 });
pricePointSchema.index({ at: 1 }, { expireAfterSeconds: 8 * 24 * 3600 });

export type PricePointRecord = SchemaRecord<typeof pricePointSchema>;
export type PricePointModel = Model<PricePointRecord>;

export function pricePointModel(conn: Connection): PricePointModel {
  return (
    (conn.models.PricePoint as PricePointModel | undefined) ??
    conn.model<PricePointRecord>('PricePoint', pricePointSchema)
  );
}
