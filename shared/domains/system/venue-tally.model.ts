import { Schema, type Connection, type Model } from 'mongoose';
import type { SchemaRecord } from '../schema-record.js';

/**
 * What one agent's history on one venue adds up to, before any marking or ranking rule: the input of
 * that venue's board (reads/venue-boards.ts). Kept by counting again only the agents whose ledger
 * moved (reads/venue-tallies.ts), so the minute's re-mark never reads the whole trade history.
 * Money in micro-units of the venue's currency. `_id` is `<venue>:<agentId>`.
 */
const venueTallySchema = new Schema(
  {
    _id: { type: String, required: true },
    venue: { type: String, required: true },
    agentId: { type: String, required: true },
    /** Filled trades (and venue orders matched in part) on the venue. */
    tradesCount: { type: Number, required: true, default: 0 },
    /** What those of them that are buys cost. */
    spentMicro: { type: Number, required: true, default: 0 },
    /** Realised P&L of every position on the venue (sells, settlements, redemptions). */
    realizedMicro: { type: Number, required: true, default: 0 },
    /** Closed or settled positions that made money, and those that did not. */
    winCount: { type: Number, required: true, default: 0 },
    lossCount: { type: Number, required: true, default: 0 },
  },
  { collection: 'venue_tallies', versionKey: false },
);
// A board's inputs: every tally of one venue; and one agent's tallies, to count it again.
venueTallySchema.index({ venue: 1 });
venueTallySchema.index({ agentId: 1 });

export type VenueTallyRecord = SchemaRecord<typeof venueTallySchema>;
export type VenueTallyModel = Model<VenueTallyRecord>;

export function venueTallyModel(conn: Connection): VenueTallyModel {
  return (
    (conn.models.VenueTally as VenueTallyModel | undefined) ??
    conn.model<VenueTallyRecord>('VenueTally', venueTallySchema)
  );
}
