import { Schema, type Connection, type Model } from 'mongoose';
import type { SchemaRecord } from '../schema-record.js';

/**
 * Last start/end/error of each schedule, for operators (node-cron itself keeps no history), and
 * the operator's pause: the jobs process reads `paused` on every tick and skips the tick while set.
 */
const scheduleRunSchema = new Schema(
  {
    _id: { type: String, required: true },
    lastStartedAt: { type: Date, default: null },
    lastFinishedAt: { type: Date, default: null },
    lastError: { type: String, default: null },
    runs: { type: Number, default: 0 },
    failures: { type: Number, default: 0 },
    paused: { type: Boolean, default: false },
    pausedAt: { type: Date, default: null },
    pausedBy: { type: String, default: null },
    /** Ticks skipped while paused. */
    skips: { type: Number, default: 0 },
    lastSkippedAt: { type: Date, default: null },
  },
  { collection: 'schedule_runs', versionKey: false },
);

export type ScheduleRunRecord = SchemaRecord<typeof scheduleRunSchema>;
export type ScheduleRunModel = Model<ScheduleRunRecord>;

export function scheduleRunModel(conn: Connection): ScheduleRunModel {
  return (
    (conn.models.ScheduleRun as ScheduleRunModel | undefined) ??
    conn.model<ScheduleRunRecord>('ScheduleRun', scheduleRunSchema)
  );
}
