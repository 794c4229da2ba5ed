import { Schema, type Connection, type Model } from 'mongoose';
import type { SchemaRecord } from '../schema-record.js';

/** How long a signal stays in the agent's event journal (`GET /api/sdk/reactor/events`). */
export const SIGNAL_JOURNAL_SECONDS = 24 * 3600;

/** The watched wallet's fill a signal mirrors, as the copytrading skill reads it (`whale`). */
const whaleSchema = new Schema(
  {
    wallet: { type: String, required: true },
    label: { type: String, default: null },
    side: { type: String, enum: ['BUY', 'SELL'], required: true },
    tokenId: { type: String, required: true },
    price: { type: Number, required: true },
    sharesMicro: { type: Number, required: true },
    conditionId: { type: String, required: true },
    marketTitle: { type: String, default: null },
    marketSlug: { type: String, default: null },
    outcome: { type: String, default: null },
  },
  { _id: false },
);

/**
 * One watched wallet's fill turned into a signal for one watching agent. `_id` is
 * `<agentId>|<signalId>` (the signal id is the transaction hash for a taker leg, longer for a maker
 * leg), so a replayed block, a retried job or a second process writes it once.
 *
 * `live`: it was trade-ready when written (an amount, not expired) and has not been deleted or
 * withdrawn since; `GET /pending` reads the live ones and leaves out those past `expiresAt`.
 * Every signal stays SIGNAL_JOURNAL_SECONDS as the agent's event journal (TTL on `createdAt`).
 * `publishedAt` / `withdrawalPublishedAt`: its event (and its withdrawal's) is on the Reactor
 * event stream, so a retried job does not publish it again.
 */
const reactorSignalSchema = new Schema(
  {
    _id: { type: String, required: true },
    agentId: { type: String, required: true },
    signalId: { type: String, required: true },
    fillId: { type: String, required: true },
    leg: { type: String, enum: ['taker', 'maker'], required: true },
    txHash: { type: String, required: true },
    /** The agent's config venue: where the skill mirrors it. */
    venue: { type: String, required: true },
    marketId: { type: String, required: true },
    side: { type: String, enum: ['yes', 'no'], required: true },
    action: { type: String, enum: ['buy', 'sell'], required: true },
    /** The mirror amount in micro venue units (whole cents); 0 when nothing was left to mirror. */
    amountMicro: { type: Number, required: true },
    whale: { type: whaleSchema, required: true },
    live: { type: Boolean, required: true },
    createdAt: { type: Date, required: true },
    expiresAt: { type: Date, required: true },
    deletedAt: { type: Date, default: null },
    withdrawnAt: { type: Date, default: null },
    publishedAt: { type: Date, default: null },
    withdrawalPublishedAt: { type: Date, default: null },
  },
  { collection: 'reactor_signals', versionKey: false },
);
reactorSignalSchema.index({ agentId: 1, live: 1 });
reactorSignalSchema.index({ agentId: 1, createdAt: -1 });
reactorSignalSchema.index({ fillId: 1 });
reactorSignalSchema.index({ createdAt: 1 }, { expireAfterSeconds: SIGNAL_JOURNAL_SECONDS });

export type ReactorWhale = SchemaRecord<
  typeof whaleSchema,
  {
    side: 'BUY' | 'SELL';
    label: string | null;
    marketTitle: string | null;
    marketSlug: string | null;
    outcome: string | null;
  }
>;
export type ReactorSignalRecord = SchemaRecord<
  typeof reactorSignalSchema,
  {
    leg: 'taker' | 'maker';
    side: 'yes' | 'no';
    action: 'buy' | 'sell';
    whale: ReactorWhale;
    deletedAt: Date | null;
    withdrawnAt: Date | null;
    publishedAt: Date | null;
    withdrawalPublishedAt: Date | null;
  }
>;
export type ReactorSignalModel = Model<ReactorSignalRecord>;

export function reactorSignalModel(conn: Connection): ReactorSignalModel {
  return (
    (conn.models.ReactorSignal as ReactorSignalModel | undefined) ??
    conn.model<ReactorSignalRecord>('ReactorSignal', reactorSignalSchema)
  );
}
