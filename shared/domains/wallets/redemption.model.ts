import { Schema, type Connection, type Model } from 'mongoose';
import type { SchemaRecord } from '../schema-record.js';

/**
 * `prepared`: an external wallet was handed the transaction to sign; `signed`: the service signed
 * it for a managed wallet and recorded the bytes before sending (write-ahead, so a worker killed
 * after the send re-sends the same bytes instead of signing a second transaction); `sent`: in the
 * pool; `redeemed`: mined (or reported by the client), the positions are settled; `failed`: it
 * reverted or was dropped, and the next request signs a new one.
 */
export const REDEMPTION_STATUSES = ['prepared', 'signed', 'sent', 'redeemed', 'failed'] as const;
export type RedemptionStatus = (typeof REDEMPTION_STATUSES)[number];

/**
 * How it came about: signed by the service (managed wallet), reported by the client, or a batch
 * the owner of a deposit wallet signed and the relayer executed.
 */
export const REDEMPTION_PATHS = ['managed', 'external', 'deposit-wallet'] as const;
export type RedemptionPath = (typeof REDEMPTION_PATHS)[number];

/**
 * One wallet's redemption of one resolved market (`_id` = `<wallet lowercase>-<market id>`): the
 * collateral adapter redeems the caller's whole balance of both outcomes, so a wallet redeems a
 * market once, for every agent of its human that holds it.
 */
const redemptionSchema = new Schema(
  {
    _id: { type: String, required: true },
    userId: { type: String, required: true },
    /** The agent whose own wallet redeemed (Elite agent wallet); null for the human's wallet. */
    agentId: { type: String, default: null },
    marketId: { type: String, required: true },
    conditionId: { type: String, required: true },
    wallet: { type: String, required: true },
    path: { type: String, enum: REDEMPTION_PATHS, required: true },
    status: { type: String, enum: REDEMPTION_STATUSES, required: true },
    /** The redemption transaction (its TxBroadcast record holds the signed bytes). */
    txHash: { type: String, default: null },
    /** The CTF operator approval of the adapter, sent first when the managed wallet lacked it. */
    approvalTxHash: { type: String, default: null },
    /** Winning shares of the settled positions, in micro pUSD. */
    payoutMicro: { type: Number, required: true, default: 0 },
    error: { type: String, default: null },
    /** Client requests so far; each names its own queue job. Set by `$inc` on insert. */
    requests: { type: Number },
    redeemedAt: { type: Date, default: null },
  },
  { collection: 'redemptions', timestamps: true, versionKey: false },
);
redemptionSchema.index({ txHash: 1 });
redemptionSchema.index({ userId: 1, marketId: 1 });

export type RedemptionRecord = SchemaRecord<
  typeof redemptionSchema,
  { status: RedemptionStatus; path: RedemptionPath; requests: number }
>;
export type RedemptionModel = Model<RedemptionRecord>;

export const redemptionId = (wallet: string, marketId: string) => `${wallet.toLowerCase()}-${marketId}`;

export function redemptionModel(conn: Connection): RedemptionModel {
  return (
    (conn.models.Redemption as RedemptionModel | undefined) ??
    conn.model<RedemptionRecord>('Redemption', redemptionSchema)
  );
}
