import { Schema, type Connection, type Model } from 'mongoose';
import type { SchemaRecord } from '../schema-record.js';

/**
 * Where the tape recorder stands, per market and source: the last print recorded (a venue print's
 * time, or a sim market's event sequence number) and the fingerprint of the market row last
 * written. Advanced only after the rows are in the store, so a run that dies re-reads what it had
 * not finished; a print written twice that way is served once (the slice dedupes by print id).
 */
const tapeCursorSchema = new Schema(
  {
    /** `<source>:<marketId>`. */
    _id: { type: String, required: true },
    source: { type: String, required: true },
    marketId: { type: String, required: true },
    /** Venue prints: recorded through this Unix second. */
    printsThroughSec: { type: Number, default: null },
    /** Sim markets: fill events recorded through this sequence number. */
    seqThrough: { type: Number, default: null },
    /** The market row last written, as its tape-visible fingerprint. */
    fingerprint: { type: String, default: null },
    recordedAt: { type: Date, default: null },
    /**
     * The source, while the market has prints the recorder has not read yet (a run reads a bounded
     * number); absent otherwise, so that the sparse index holds only the markets behind.
     */
    backlog: { type: String },
  },
  { collection: 'tape_cursors', versionKey: false },
);
tapeCursorSchema.index({ source: 1, recordedAt: 1 });
tapeCursorSchema.index({ backlog: 1 }, { sparse: true });

/** The recorder's lease and its last run, one document (`_id: 'recorder'`). */
const tapeRecorderSchema = new Schema(
  {
    _id: { type: String, required: true },
    leaseId: { type: String, default: null },
    leaseUntil: { type: Date, default: null },
    lastRunAt: { type: Date, default: null },
    lastRun: { type: Schema.Types.Mixed, default: null },
  },
  { collection: 'tape_recorder', versionKey: false },
);

export type TapeCursorRecord = SchemaRecord<typeof tapeCursorSchema>;
export type TapeCursorModel = Model<TapeCursorRecord>;
export type TapeRecorderRecord = SchemaRecord<typeof tapeRecorderSchema, { lastRun: unknown }>;
export type TapeRecorderModel = Model<TapeRecorderRecord>;

export function tapeCursorModel(conn: Connection): TapeCursorModel {
  return (
    (conn.models.TapeCursor as TapeCursorModel | undefined) ??
    conn.model<TapeCursorRecord>('TapeCursor', tapeCursorSchema)
  );
}

export function tapeRecorderModel(conn: Connection): TapeRecorderModel {
  return (
    (conn.models.TapeRecorder as TapeRecorderModel | undefined) ??
    conn.model<TapeRecorderRecord>('TapeRecorder', tapeRecorderSchema)
  );
}
