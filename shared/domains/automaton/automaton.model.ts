import { Schema, type Connection, type Model } from 'mongoose';
import type { SchemaRecord } from '../schema-record.js';
import { DEFAULT_VENUE } from '../venues/venue-id.js';

/** One skill as the agent's automaton uses it: picked by the bandit only while enabled. */
const skillPrefSchema = new Schema(
  {
    slug: { type: String, required: true },
    enabled: { type: Boolean, required: true, default: true },
    /** The skill's tunables (env name → value) as last set by the plugin or its human. */
    config: { type: Schema.Types.Mixed, default: {} },
    /** Tunables the human fixed: the plugin's tuning leaves them alone. */
    pinned: { type: [String], default: [] },
  },
  { _id: false },
);

/**
 * An agent's automaton (the `simmer-automaton` plugin's server side): its budget and horizon, whether
 * it is halted, its skill preferences, and the bandit's arms as the plugin last saved them so a
 * restarted plugin resumes learning. One per agent; `_id` is the agent id.
 */
const automatonSchema = new Schema(
  {
    _id: { type: String, required: true },
    budgetMicro: { type: Number, required: true },
    horizonDays: { type: Number, required: true },
    venue: { type: String, required: true, default: DEFAULT_VENUE },
    /** Set again by every init: the plugin treats a new value as a re-init and resets its bandit. */
    startedAt: { type: Date, required: true },
    halted: { type: Boolean, required: true, default: false },
    skills: { type: [skillPrefSchema], default: [] },
    activeSkills: { type: [String], default: [] },
    /** The bandit (plugin-owned): epsilon, cycle count and arms exactly as last posted. */
    epsilon: { type: Number, default: null },
    cycleCount: { type: Number, required: true, default: 0 },
    arms: { type: [Schema.Types.Mixed], default: [] },
    /** Numbers the recorded cycles of this agent (the plugin reads a cycle's `id` as a number). */
    cycleSeq: { type: Number, required: true, default: 0 },
  },
  { collection: 'automatons', timestamps: true, versionKey: false },
);

// Mixed paths are `any` to mongoose: they hold what the plugin sent, typed by the API's schemas.
export type AutomatonRecord = SchemaRecord<
  typeof automatonSchema,
  {
    skills: { slug: string; enabled: boolean; config: Record<string, unknown>; pinned: string[] }[];
    arms: Record<string, unknown>[];
  }
>;
export type AutomatonModel = Model<AutomatonRecord>;

export function automatonModel(conn: Connection): AutomatonModel {
  return (
    (conn.models.Automaton as AutomatonModel | undefined) ??
    conn.model<AutomatonRecord>('Automaton', automatonSchema)
  );
}
