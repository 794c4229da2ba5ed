import { Schema, type Connection, type Model } from 'mongoose';
import type { SchemaRecord } from '../schema-record.js';

/**
 * The market's event log: every change to a book (a fill, the resolution) is one event with the
 * next sequence number. The unique (marketId, seq) index makes the log the one writer per book:
 * two trades cannot both claim the same sequence number, and the market document is a projection
 * any worker can roll forward. The event id is the trade id (or `resolve-<marketId>`), so a retried
 * trade finds its own fill instead of filling twice.
 */
const marketEventSchema = new Schema(
  {
    _id: { type: String, required: true },
    marketId: { type: String, required: true },
    seq: { type: Number, required: true },
    /** A fill, the resolution, a re-anchoring toward the venue price, or the close of trading. */
    kind: { type: String, enum: ['fill', 'resolve', 'anchor', 'close'], required: true },
    side: { type: String, enum: ['yes', 'no', null], default: null },
    action: { type: String, enum: ['buy', 'sell', null], default: null },
    /** Shares filled (micro-shares): added to the book on a buy, removed on a sell. */
    sharesMicro: { type: Number, default: 0 },
    /** Amount paid (buy) or received (sell), micro-units. */
    amountMicro: { type: Number, default: 0 },
    priceBefore: { type: Number, default: null },
    priceAfter: { type: Number, default: null },
    outcome: { type: Boolean, default: null },
    /** `resolve` events: what a YES share pays, micro-units (null on older events: the outcome says it). */
    payoutYesMicro: { type: Number, default: undefined },
    /** `anchor` events: the book's new YES anchor (shares), moved toward the venue price. */
    q0Yes: { type: Number, default: undefined },
    /** `anchor` events: the venue YES price the book was anchored to. */
    anchorPrice: { type: Number, default: undefined },
    at: { type: Date, required: true },
  },
  { collection: 'market_events', versionKey: false },
);
marketEventSchema.index({ marketId: 1, seq: 1 }, { unique: true });
marketEventSchema.index({ marketId: 1, at: 1 });

// `q0Yes` and `anchorPrice` have no default: only `anchor` events carry them (never null).
// `payoutYesMicro`: only `resolve` events carry it, and not those logged before it existed.
export type MarketEventRecord = SchemaRecord<
  typeof marketEventSchema,
  { q0Yes?: number; anchorPrice?: number; payoutYesMicro?: number | null }
>;
export type MarketEventModel = Model<MarketEventRecord>;

export function marketEventModel(conn: Connection): MarketEventModel {
  return (
    (conn.models.MarketEvent as MarketEventModel | undefined) ??
    conn.model<MarketEventRecord>('MarketEvent', marketEventSchema)
  );
}
