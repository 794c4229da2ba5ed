import { Schema, type Connection, type Model } from 'mongoose';
import type { SchemaRecord } from '../schema-record.js';

/** Client-contract §7.4: `above`/`below` hold on a level, `crosses_*` need the price seen on the other side first. */
export const ALERT_CONDITIONS = ['above', 'below', 'crosses_above', 'crosses_below'] as const;
export type AlertCondition = (typeof ALERT_CONDITIONS)[number];

/** Where a price stood against the threshold: `above` is price ≥ threshold. */
export type ThresholdSide = 'above' | 'below';

/**
 * An agent's price alert on one market side. It fires once: the evaluation that sees the condition
 * met sets `triggeredAt` with a single guarded update (`{_id, lastSeq, triggeredAt: null}`), so two
 * evaluations racing on the same market events fire it at most once. `lastSeq` is the market's
 * `book.version` (market-event seq) last evaluated and `lastSide` where the price stood then.
 */
const priceAlertSchema = new Schema(
  {
    _id: { type: String, required: true },
    agentId: { type: String, required: true },
    marketId: { type: String, required: true },
    side: { type: String, enum: ['yes', 'no'], required: true },
    condition: { type: String, enum: ALERT_CONDITIONS, required: true },
    threshold: { type: Number, required: true },
    webhookUrl: { type: String, default: null },
    lastSeq: { type: Number, required: true },
    lastSide: { type: String, enum: ['above', 'below'], required: true },
    triggeredAt: { type: Date, default: null },
    triggeredPrice: { type: Number, default: null },
  },
  { collection: 'price_alerts', timestamps: true, versionKey: false },
);
priceAlertSchema.index({ marketId: 1, triggeredAt: 1 });
priceAlertSchema.index({ agentId: 1, createdAt: -1 });

export type PriceAlertRecord = SchemaRecord<
  typeof priceAlertSchema,
  {
    side: 'yes' | 'no';
    condition: AlertCondition;
    lastSide: ThresholdSide;
    webhookUrl: string | null;
    triggeredAt: Date | null;
    triggeredPrice: number | null;
  }
>;
export type PriceAlertModel = Model<PriceAlertRecord>;

export function priceAlertModel(conn: Connection): PriceAlertModel {
  return (
    (conn.models.PriceAlert as PriceAlertModel | undefined) ??
    conn.model<PriceAlertRecord>('PriceAlert', priceAlertSchema)
  );
}
