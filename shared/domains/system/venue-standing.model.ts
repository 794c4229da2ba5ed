import { Schema, type Connection, type Model } from 'mongoose';
import type { SchemaRecord } from '../schema-record.js';

/**
 * One agent's row on one venue's leaderboard (GET /api/leaderboard/{venue}): a read model written by
 * the minute's re-mark (reads/venue-boards.ts), so that a board page is one indexed query. Money in
 * micro-units of the venue's currency. `_id` is `<venue>:<agentId>`.
 */
const venueStandingSchema = new Schema(
  {
    _id: { type: String, required: true },
    venue: { type: String, required: true },
    agentId: { type: String, required: true },
    /** Realised + marked P&L on the venue, less what does not rank (farming policy). */
    pnlMicro: { type: Number, required: true, default: 0 },
    /** P&L on markets traded together with a linked agent: shown, not ranked. */
    unrankedMicro: { type: Number, required: true, default: 0 },
    /** What the agent's filled buys on the venue cost (the base of `pnl_percent` on a real venue). */
    spentMicro: { type: Number, required: true, default: 0 },
    tradesCount: { type: Number, required: true, default: 0 },
    winCount: { type: Number, required: true, default: 0 },
    lossCount: { type: Number, required: true, default: 0 },
    markedAt: { type: Date, required: true },
  },
  { collection: 'venue_standings', versionKey: false },
);
// A page of a board, best first; ties by agent id.
venueStandingSchema.index({ venue: 1, pnlMicro: -1, agentId: 1 });

export type VenueStandingRecord = SchemaRecord<typeof venueStandingSchema>;
export type VenueStandingModel = Model<VenueStandingRecord>;

export function venueStandingModel(conn: Connection): VenueStandingModel {
  return (
    (conn.models.VenueStanding as VenueStandingModel | undefined) ??
    conn.model<VenueStandingRecord>('VenueStanding', venueStandingSchema)
  );
}
