import { Schema, type Connection, type Model } from 'mongoose';
import type { SchemaRecord } from '../schema-record.js';

export const TIERS = ['free', 'pro', 'elite'] as const;
export type Tier = (typeof TIERS)[number];

/**
 * A human, known by the `sub` of their token; created on first use. `activeAgents` counts claimed
 * agents that are not released: the tier limit is enforced on it with a guarded increment, so two
 * concurrent claims or reactivations can never pass the limit together.
 */
const userSchema = new Schema(
  {
    _id: { type: String, required: true },
    email: { type: String, default: null },
    tier: { type: String, enum: TIERS, required: true, default: 'free' },
    activeAgents: { type: Number, required: true, default: 0 },
    /** Bumped by every slot change, so the reconcile job can tell a settled counter from one in motion. */
    slotsVersion: { type: Number, required: true, default: 0 },
  },
  { collection: 'users', timestamps: true, versionKey: false },
);

export type UserRecord = SchemaRecord<typeof userSchema>;
export type UserModel = Model<UserRecord>;

export function userModel(conn: Connection): UserModel {
  return (conn.models.User as UserModel | undefined) ?? conn.model<UserRecord>('User', userSchema);
}
