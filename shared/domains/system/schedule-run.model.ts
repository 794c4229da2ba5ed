import { Schema, type Connection, type Model } from 'mongoose';

/** Last start/end/error of each schedule, for operators (node-cron itself keeps no history). */
const scheduleRunSchema = new Schema(
  {
    _id: { type: String, required: true },
    lastStartedAt: { type: Date, default: null },
    lastFinishedAt: { type: Date, default: null },
    lastError: { type: String, default: null },
    runs: { type: Number, default: 0 },
    failures: { type: Number, default: 0 },
  },
  { collection: 'schedule_runs', versionKey: false },
);

export interface ScheduleRunRecord {
  _id: string;
  lastStartedAt: Date | null;
  lastFinishedAt: Date | null;
  lastError: string | null;
  runs: number;
  failures: number;
}
export type ScheduleRunModel = Model<ScheduleRunRecord>;

export function scheduleRunModel(conn: Connection): ScheduleRunModel {
  return (
    (conn.models.ScheduleRun as ScheduleRunModel | undefined) ??
    conn.model<ScheduleRunRecord>('ScheduleRun', scheduleRunSchema)
  );
}
