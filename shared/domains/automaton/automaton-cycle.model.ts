import { Schema, type Connection, type Model } from 'mongoose';
import type { SchemaRecord } from '../schema-record.js';

const selectionSchema = new Schema(
  // `reason` may be empty (the plugin sends ''): mongoose's `required` refuses empty strings.
  { slug: { type: String, required: true }, reason: { type: String, default: '' }, score: Number },
  { _id: false },
);

/**
 * One cycle of an agent's automaton as the plugin recorded it: the skills its bandit selected (and
 * why), its tier and epsilon, the budget it saw. The outcomes are not stored: they are read from the
 * agent's trades of each selected skill in the cycle's span when the cycle is listed.
 */
const automatonCycleSchema = new Schema(
  {
    agentId: { type: String, required: true },
    /** The agent's own running number of this record (`id` in the API). */
    seq: { type: Number, required: true },
    cycleNum: { type: Number, required: true },
    tier: { type: String, default: '' },
    epsilon: { type: Number, required: true },
    selectedSkills: { type: [selectionSchema], default: [] },
    tuningHints: { type: [Schema.Types.Mixed], default: [] },
    configChanges: { type: [Schema.Types.Mixed], default: [] },
    budgetUsd: { type: Number, default: null },
    spentUsd: { type: Number, default: null },
  },
  { collection: 'automaton_cycles', timestamps: true, versionKey: false },
);
automatonCycleSchema.index({ agentId: 1, seq: -1 }, { unique: true });

// Mixed paths are `any` to mongoose: they hold the plugin's hints and changes as the API validated them.
export type AutomatonCycleRecord = SchemaRecord<
  typeof automatonCycleSchema,
  {
    selectedSkills: { slug: string; reason: string; score: number | null }[];
    tuningHints: Record<string, unknown>[];
    configChanges: Record<string, unknown>[];
  }
>;
export type AutomatonCycleModel = Model<AutomatonCycleRecord>;

export function automatonCycleModel(conn: Connection): AutomatonCycleModel {
  return (
    (conn.models.AutomatonCycle as AutomatonCycleModel | undefined) ??
    conn.model<AutomatonCycleRecord>('AutomatonCycle', automatonCycleSchema)
  );
}
