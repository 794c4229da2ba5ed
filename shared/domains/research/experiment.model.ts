import { Schema, type Connection, type Model } from 'mongoose';
import type { SchemaRecord } from '../schema-record.js';

export const EXPERIMENT_STATUSES = ['keep', 'discard', 'crash', 'checks_failed'] as const;
export const BEST_DIRECTIONS = ['lower', 'higher'] as const;

/**
 * One autoresearch experiment an agent ran on one of its skills (client-contract §9). Recorded
 * once per (agent, skill, experiment number): the unique index makes a resend find the first
 * record, whose verdicts (`isNewBest`, …) were judged against the experiments recorded before it.
 */
const experimentSchema = new Schema(
  {
    _id: { type: String, required: true },
    agentId: { type: String, required: true },
    skillSlug: { type: String, required: true },
    experimentNumber: { type: Number, required: true },
    segment: { type: Number, required: true },
    status: { type: String, enum: EXPERIMENT_STATUSES, required: true },
    metricName: { type: String, required: true },
    metricValue: { type: Number, required: true },
    // Often empty (a count has no unit), which mongoose's `required` would refuse.
    metricUnit: { type: String, default: '' },
    bestDirection: { type: String, enum: BEST_DIRECTIONS, required: true },
    secondaryMetrics: { type: Schema.Types.Mixed, default: null },
    description: { type: String, default: null },
    commitHash: { type: String, default: null },
    isNewBest: { type: Boolean, required: true },
    statusMismatch: { type: Boolean, required: true },
    priorBestValue: { type: Number, default: null },
  },
  { collection: 'research_experiments', timestamps: true, versionKey: false },
);
experimentSchema.index({ agentId: 1, skillSlug: 1, experimentNumber: 1 }, { unique: true });

export type ExperimentRecord = SchemaRecord<
  typeof experimentSchema,
  {
    // A Mixed path, which mongoose types as `any`.
    secondaryMetrics: unknown;
    status: (typeof EXPERIMENT_STATUSES)[number];
    bestDirection: (typeof BEST_DIRECTIONS)[number];
  }
>;
export type ExperimentModel = Model<ExperimentRecord>;

export function experimentModel(conn: Connection): ExperimentModel {
  return (
    (conn.models.ResearchExperiment as ExperimentModel | undefined) ??
    conn.model<ExperimentRecord>('ResearchExperiment', experimentSchema)
  );
}
