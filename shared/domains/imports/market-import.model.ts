import { Schema, type Connection, type Model } from 'mongoose';
import type { SchemaRecord } from '../schema-record.js';
import { externalVenueIdPath } from '../venues/venue-id.js';

/**
 * One import request, persisted before its job is queued so the worker reloads it by id and the
 * API can answer from it after the deadline. The answer is written once, by the worker.
 */
const marketImportSchema = new Schema(
  {
    _id: { type: String, required: true },
    agentId: { type: String, required: true },
    venue: externalVenueIdPath,
    /** The URL (or Kalshi ticker) as the agent sent it (never fetched: only the parsed ids are used). */
    url: { type: String, required: true },
    /**
     * Polymarket: `event` or `market` (by slug). Kalshi: `ticker` (a market, else an event),
     * `event` (an event, or a market's event) or `series` (its open event closing soonest).
     */
    kind: { type: String, enum: ['event', 'market', 'ticker', 'series'], required: true },
    eventSlug: { type: String, default: null },
    marketSlug: { type: String, default: null },
    /** Kalshi: the ticker asked for (upper case), market or event. */
    ticker: { type: String, default: null },
    /** Kalshi: the series of a series page. */
    series: { type: String, default: null },
    /** Condition ids the agent asked for (multi-outcome events); empty = the first 10 outcomes. */
    marketIds: { type: [String], default: [] },
    status: { type: String, enum: ['pending', 'done', 'failed'], required: true, default: 'pending' },
    result: { type: Schema.Types.Mixed, default: null },
    /** The daily-quota use this request took: kept when it created markets, else given back once. */
    quota: { type: String, enum: ['charged', 'refunded'], required: true, default: 'charged' },
    error: { type: Schema.Types.Mixed, default: null },
    createdAt: { type: Date, required: true },
    finishedAt: { type: Date, default: null },
  },
  { collection: 'market_imports', versionKey: false },
);
// Requests are an audit trail of a week; the markets they created stay.
marketImportSchema.index({ createdAt: 1 }, { expireAfterSeconds: 7 * 24 * 3600 });
marketImportSchema.index({ agentId: 1, createdAt: -1 });

export interface ImportFailure {
  status: number;
  code: string;
  message: string;
  fix: string;
}

// Mixed paths, which mongoose types as `any`.
export type MarketImportRecord = SchemaRecord<
  typeof marketImportSchema,
  { result: Record<string, unknown> | null; error: ImportFailure | null }
>;
export type MarketImportModel = Model<MarketImportRecord>;

export function marketImportModel(conn: Connection): MarketImportModel {
  return (
    (conn.models.MarketImport as MarketImportModel | undefined) ??
    conn.model<MarketImportRecord>('MarketImport', marketImportSchema)
  );
}
