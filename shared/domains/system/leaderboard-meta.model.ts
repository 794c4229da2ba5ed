import { Schema, type Connection, type Model } from 'mongoose';
import type { SchemaRecord } from '../schema-record.js';

/** Totals the leaderboard shows, refreshed with each re-mark so a read never counts agents. */
const leaderboardMetaSchema = new Schema(
  {
    _id: { type: String, required: true },
    totalAgents: { type: Number, required: true, default: 0 },
    markedAt: { type: Date, default: null },
  },
  { collection: 'leaderboard_meta', versionKey: false },
);

export type LeaderboardMetaRecord = SchemaRecord<typeof leaderboardMetaSchema>;
export type LeaderboardMetaModel = Model<LeaderboardMetaRecord>;

export function leaderboardMetaModel(conn: Connection): LeaderboardMetaModel {
  return (
    (conn.models.LeaderboardMeta as LeaderboardMetaModel | undefined) ??
    conn.model<LeaderboardMetaRecord>('LeaderboardMeta', leaderboardMetaSchema)
  );
}
