import { Schema, type Connection, type Model } from 'mongoose';
import type { SchemaRecord } from '../schema-record.js';

/** What an agent's skill did with a signal; the copytrading skill posts `mirrored` on success. */
export const REACTION_DECISIONS = ['executed', 'mirrored', 'skipped', 'failed'] as const;
export type ReactionDecision = (typeof REACTION_DECISIONS)[number];

/** How long an agent's reactions are kept (its journal, and the skill's circuit breaker's memory). */
export const REACTION_JOURNAL_SECONDS = 30 * 24 * 3600;

/**
 * One reaction an agent's skill reported (`POST /api/sdk/reactor/reactions`), as it sent it: the
 * journal the skill's circuit breaker reads newest first. `_id` is an ObjectId (creation order
 * within a process breaks ties of one millisecond).
 */
const reactorReactionSchema = new Schema(
  {
    agentId: { type: String, required: true },
    decision: { type: String, enum: REACTION_DECISIONS, required: true },
    eventTxHash: { type: String, default: null },
    takerWallet: { type: String, default: null },
    takerSide: { type: String, default: null },
    takerToken: { type: String, default: null },
    takerPrice: { type: Number, default: null },
    takerSize: { type: Number, default: null },
    conditionId: { type: String, default: null },
    marketTitle: { type: String, default: null },
    marketSlug: { type: String, default: null },
    outcome: { type: String, default: null },
    tradeId: { type: String, default: null },
    reason: { type: String, default: null },
    createdAt: { type: Date, required: true },
  },
  { collection: 'reactor_reactions', versionKey: false },
);
reactorReactionSchema.index({ agentId: 1, createdAt: -1 });
reactorReactionSchema.index({ createdAt: 1 }, { expireAfterSeconds: REACTION_JOURNAL_SECONDS });

export type ReactorReactionRecord = SchemaRecord<
  typeof reactorReactionSchema,
  { decision: ReactionDecision }
>;
export type ReactorReactionModel = Model<ReactorReactionRecord>;

export function reactorReactionModel(conn: Connection): ReactorReactionModel {
  return (
    (conn.models.ReactorReaction as ReactorReactionModel | undefined) ??
    conn.model<ReactorReactionRecord>('ReactorReaction', reactorReactionSchema)
  );
}
