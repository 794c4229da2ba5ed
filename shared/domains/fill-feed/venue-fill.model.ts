import { Schema, type Connection, type Model } from 'mongoose';
import type { VenueFill } from '../venues/venue-fill.js';

/**
 * `venue_fills`: every fill the fill feed read from a venue's settlement layer, one document per
 * leg (`_id` `<txHash>:<logIndex>:<leg>`, so a block read twice stores nothing twice). Reactor
 * reads them by id from its `react-to-fills` jobs.
 */
export type VenueFillRecord = VenueFill & {
  /** When the feed stored it (this process's clock): the operator's fills per minute. */
  recordedAt: Date;
};
export type VenueFillModel = Model<VenueFillRecord>;

const fillMarketSchema = new Schema(
  {
    externalId: { type: String, required: true },
    yesTokenId: { type: String, default: null },
    noTokenId: { type: String, default: null },
    title: { type: String, default: null },
    slug: { type: String, default: null },
    outcomeLabel: { type: String, default: null },
  },
  { _id: false },
);

const venueFillSchema = new Schema<VenueFillRecord>(
  {
    _id: { type: String, required: true },
    venue: { type: String, required: true },
    txHash: { type: String, required: true },
    logIndex: { type: Number, required: true },
    blockNumber: { type: Number, required: true },
    blockHash: { type: String, required: true },
    at: { type: Date, required: true },
    leg: { type: String, enum: ['taker', 'maker'], required: true },
    wallet: { type: String, required: true },
    action: { type: String, enum: ['buy', 'sell'], required: true },
    outcome: { type: String, enum: ['yes', 'no'], required: true },
    tokenId: { type: String, required: true },
    price: { type: Number, required: true },
    shares: { type: Number, required: true },
    market: { type: fillMarketSchema, default: null },
    withdrawnAt: { type: Date, default: null },
    recordedAt: { type: Date, required: true },
  },
  { collection: 'venue_fills', versionKey: false },
);
// The fills of a block range: what a reorg's replacement blocks are compared with.
venueFillSchema.index({ venue: 1, blockNumber: 1 });
// A window of fills in time order (the copy leaders' daily backtest).
venueFillSchema.index({ at: 1 });
// Fills per minute (the operator's console).
venueFillSchema.index({ recordedAt: 1 });

export function venueFillModel(conn: Connection): VenueFillModel {
  return (
    (conn.models.VenueFill as VenueFillModel | undefined) ??
    conn.model<VenueFillRecord>('VenueFill', venueFillSchema)
  );
}
