import { Schema, type Connection, type Model } from 'mongoose';
import type { SchemaRecord } from '../schema-record.js';

/** Last sign of life per component (e.g. the scheduler tick a worker processed), shown by readiness. */
const heartbeatSchema = new Schema(
  {
    _id: { type: String, required: true },
    slot: { type: String, required: true },
    scheduledAt: { type: Date, required: true },
    processedAt: { type: Date, required: true },
  },
  { collection: 'heartbeats', versionKey: false },
);

export type HeartbeatRecord = SchemaRecord<typeof heartbeatSchema>;
export type HeartbeatModel = Model<HeartbeatRecord>;

export function heartbeatModel(conn: Connection): HeartbeatModel {
  return (
    (conn.models.Heartbeat as HeartbeatModel | undefined) ??
    conn.model<HeartbeatRecord>('Heartbeat', heartbeatSchema)
  );
}
