import { Schema, type Connection, type Model } from 'mongoose';

/** One leader as stored: the copy backtest's result for one wallet (copy-backtest.ts). */
export interface StoredLeader {
  wallet: string;
  pnlUsd: number;
  slippageCostRatePct: number;
  tradeCount: number;
}

/** The leaders of one category (`all`: every market), best first. */
export interface CategoryLeaders {
  category: string;
  leaders: StoredLeader[];
}

/**
 * `copy_leaders`: the last run of the daily copy-leaders job, one document (`_id` `latest`),
 * replaced whole by each run. Absent until the first run: the API answers 503 until then.
 */
export interface CopyLeadersRecord {
  _id: string;
  refreshedAt: Date;
  windowStart: Date;
  windowEnd: Date;
  /** Fill legs read from the window (at most the job's bound). */
  fillsRead: number;
  /** True when the window held more fills than the job reads: the oldest ones were left out. */
  truncated: boolean;
  categories: CategoryLeaders[];
}
export type CopyLeadersModel = Model<CopyLeadersRecord>;

export const LATEST_COPY_LEADERS = 'latest';

const leaderSchema = new Schema(
  {
    wallet: { type: String, required: true },
    pnlUsd: { type: Number, required: true },
    slippageCostRatePct: { type: Number, required: true },
    tradeCount: { type: Number, required: true },
  },
  { _id: false },
);

const copyLeadersSchema = new Schema<CopyLeadersRecord>(
  {
    _id: { type: String, required: true },
    refreshedAt: { type: Date, required: true },
    windowStart: { type: Date, required: true },
    windowEnd: { type: Date, required: true },
    fillsRead: { type: Number, required: true },
    truncated: { type: Boolean, required: true },
    categories: {
      type: [new Schema({ category: String, leaders: [leaderSchema] }, { _id: false })],
      default: [],
    },
  },
  { collection: 'copy_leaders', versionKey: false },
);

export function copyLeadersModel(conn: Connection): CopyLeadersModel {
  return (
    (conn.models.CopyLeaders as CopyLeadersModel | undefined) ??
    conn.model<CopyLeadersRecord>('CopyLeaders', copyLeadersSchema)
  );
}
