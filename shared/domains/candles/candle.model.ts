import { Schema, type Connection, type Model } from 'mongoose';
import type { SchemaRecord } from '../schema-record.js';

/**
 * Closed candles recorded from the market-data source, one document per symbol, interval and open
 * time (the unique index makes recording idempotent: a candle written twice is one document).
 * Prices and volume are doubles: they are read as floats by every client, never summed as money.
 */
const candleSchema = new Schema(
  {
    symbol: { type: String, required: true },
    interval: { type: String, required: true },
    openTime: { type: Date, required: true },
    open: { type: Number, required: true },
    high: { type: Number, required: true },
    low: { type: Number, required: true },
    close: { type: Number, required: true },
    volume: { type: Number, required: true },
    /** Where it came from (`binance`): a replayed dataset may hold candles of other sources later. */
    source: { type: String, required: true },
  },
  { collection: 'candles', versionKey: false },
);
candleSchema.index({ symbol: 1, interval: 1, openTime: 1 }, { unique: true });

export type CandleRecord = SchemaRecord<typeof candleSchema>;
export type CandleModel = Model<CandleRecord>;

export function candleModel(conn: Connection): CandleModel {
  return (conn.models.Candle as CandleModel | undefined) ?? conn.model<CandleRecord>('Candle', candleSchema);
}
