import { Schema, type Connection, type Model } from 'mongoose';

/**
 * `fill_feed_cursors`: where the fill feed stands on one venue (`_id` the venue id). Written after
 * a range's fills are stored and their jobs enqueued, so a follower that dies re-reads what it had
 * not finished (the store and the job ids make that a no-op). `recent` holds the hashes of the
 * last blocks read (as deep as FILL_FEED_CONFIRMATIONS), against which a reorg is recognised; the
 * head fields are what the operator's lag is read from.
 */
export interface FillFeedCursorRecord {
  _id: string;
  /** The last block whose fills are stored and enqueued. */
  block: number;
  blockHash: string;
  blockAt: Date;
  /** Hashes of recent blocks read (ranges' ends and blocks with fills), oldest first. */
  recent: { number: number; hash: string }[];
  /**
   * Set by a reorg to the highest block read before it: ranges up to it are compared with the
   * fills stored for them (those not mined again are withdrawn). Null otherwise.
   */
  reconcileThrough: number | null;
  /** The venue's newest block at the last poll. */
  head: number;
  headAt: Date;
  polledAt: Date;
  /** The process that holds the lease and wrote this. */
  holder: string;
}
export type FillFeedCursorModel = Model<FillFeedCursorRecord>;

const fillFeedCursorSchema = new Schema<FillFeedCursorRecord>(
  {
    _id: { type: String, required: true },
    block: { type: Number, required: true },
    blockHash: { type: String, required: true },
    blockAt: { type: Date, required: true },
    recent: { type: [{ _id: false, number: Number, hash: String }], default: [] },
    reconcileThrough: { type: Number, default: null },
    head: { type: Number, required: true },
    headAt: { type: Date, required: true },
    polledAt: { type: Date, required: true },
    holder: { type: String, required: true },
  },
  { collection: 'fill_feed_cursors', versionKey: false },
);

export function fillFeedCursorModel(conn: Connection): FillFeedCursorModel {
  return (
    (conn.models.FillFeedCursor as FillFeedCursorModel | undefined) ??
    conn.model<FillFeedCursorRecord>('FillFeedCursor', fillFeedCursorSchema)
  );
}
