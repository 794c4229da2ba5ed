import { Schema, type Connection, type Model } from 'mongoose';
import type { SchemaRecord } from '../schema-record.js';
import { venueIdPath } from '../venues/venue-id.js';

export const POSITION_STATUSES = ['open', 'closed', 'settled'] as const;
export type PositionStatus = (typeof POSITION_STATUSES)[number];

/**
 * One agent's holding in one market on one venue (an agent may hold the same market on several
 * venues). A projection of the agent's ledger: `appliedSeq` is the last ledger entry applied, which
 * makes re-applying an entry a no-op. Shares and money are micro-units.
 */
const positionSchema = new Schema(
  {
    _id: { type: String, required: true },
    agentId: { type: String, required: true },
    marketId: { type: String, required: true },
    venue: venueIdPath,
    sharesYesMicro: { type: Number, required: true, default: 0 },
    sharesNoMicro: { type: Number, required: true, default: 0 },
    costYesMicro: { type: Number, required: true, default: 0 },
    costNoMicro: { type: Number, required: true, default: 0 },
    /** Shares set aside by sells in flight: not available to another sell, not yet sold. */
    reservedYesMicro: { type: Number, required: true, default: 0 },
    reservedNoMicro: { type: Number, required: true, default: 0 },
    realizedPnlMicro: { type: Number, required: true, default: 0 },
    payoutMicro: { type: Number, required: true, default: 0 },
    status: { type: String, enum: POSITION_STATUSES, required: true, default: 'open' },
    sources: { type: [String], default: [] },
    /**
     * The wallet that holds the position's venue tokens (holder.ts: a Polymarket address in lower
     * case, a Solana address as is), set by its fills; null on sim, and on positions older than this
     * field until backfill-holders.ts finds it. Redemptions and exits act from this wallet, whatever
     * wallet the agent trades from now.
     */
    holderAddress: { type: String, default: null },
    appliedSeq: { type: Number, required: true, default: 0 },
    openedAt: { type: Date, default: null },
    lastTradeAt: { type: Date, default: null },
    settledAt: { type: Date, default: null },
  },
  { collection: 'positions', versionKey: false, timestamps: true },
);
positionSchema.index({ agentId: 1, venue: 1, status: 1 });
positionSchema.index({ marketId: 1, venue: 1, status: 1 });
positionSchema.index({ venue: 1, holderAddress: 1 });

// ledger.ts builds a position before mongoose stamps it.
export type PositionRecord = SchemaRecord<typeof positionSchema, { createdAt?: Date; updatedAt?: Date }>;
export type PositionModel = Model<PositionRecord>;

export const positionId = (agentId: string, marketId: string, venue: string) =>
  `${agentId}:${marketId}:${venue}`;

export function positionModel(conn: Connection): PositionModel {
  return (
    (conn.models.Position as PositionModel | undefined) ??
    conn.model<PositionRecord>('Position', positionSchema)
  );
}
