import { Schema, type Connection, type Model } from 'mongoose';
import type { SchemaRecord } from '../schema-record.js';

export const SKILL_STATUSES = ['pending', 'approved', 'rejected'] as const;
export type SkillStatus = (typeof SKILL_STATUSES)[number];

/**
 * A community skill (spec §3): submitted by an agent as `pending`, listed publicly once an operator
 * approves it. The slug is the id clients know it by (`skills[].id`).
 */
const skillSchema = new Schema(
  {
    _id: { type: String, required: true },
    name: { type: String, required: true },
    description: { type: String, required: true },
    registryUrl: { type: String, required: true },
    category: { type: String, required: true, default: 'trading' },
    tags: { type: [String], default: [] },
    difficulty: { type: String, required: true, default: 'intermediate' },
    requires: { type: [String], default: [] },
    bestWhen: { type: String, default: null },
    /** The skill's own version (its SKILL.md's), as submitted: the briefing's `skill_updates` compare against it. */
    version: { type: String, default: null },
    status: { type: String, enum: SKILL_STATUSES, required: true, default: 'pending' },
    /** Bumped by every resubmission: a review names the revision it read. */
    revision: { type: Number, required: true, default: 1 },
    submittedBy: { type: String, required: true },
    reviewNote: { type: String, default: null },
    reviewedAt: { type: Date, default: null },
  },
  { collection: 'skills', timestamps: true, versionKey: false },
);
skillSchema.index({ status: 1, category: 1, createdAt: -1 });
skillSchema.index({ submittedBy: 1, createdAt: -1 });

export type SkillRecord = SchemaRecord<typeof skillSchema>;
export type SkillModel = Model<SkillRecord>;

export function skillModel(conn: Connection): SkillModel {
  return (conn.models.Skill as SkillModel | undefined) ?? conn.model<SkillRecord>('Skill', skillSchema);
}
