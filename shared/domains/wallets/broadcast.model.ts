import { Schema, type Connection, type Model } from 'mongoose';
import type { SchemaRecord } from '../schema-record.js';

export const BROADCAST_STATUSES = ['queued', 'sent', 'mined', 'failed'] as const;
export type BroadcastStatus = (typeof BROADCAST_STATUSES)[number];

/**
 * One client-signed transaction the relay accepted (`_id` = its hash, so the same signed bytes
 * sent twice are one record). Only transactions that passed the allow-list are stored: a refusal
 * leaves nothing here and nothing on the chain. `raw` is kept so the worker (and a retry after a
 * crash) sends exactly the bytes that were checked.
 */
const txBroadcastSchema = new Schema(
  {
    _id: { type: String, required: true },
    /** The owning user (the claimed agent's human) and the agent whose key sent it. */
    userId: { type: String, required: true },
    agentId: { type: String, default: null },
    sender: { type: String, required: true },
    to: { type: String, required: true },
    kind: { type: String, required: true },
    nonce: { type: Number, required: true },
    raw: { type: String, required: true },
    status: { type: String, enum: BROADCAST_STATUSES, required: true },
    /** The node's words when sending failed, or `reverted` for a mined status-0 receipt. */
    error: { type: String, default: null },
    /** 1 or 0 once mined. */
    receiptStatus: { type: Number, default: null },
    blockNumber: { type: Number, default: null },
    /**
     * How many times a client asked for it; each ask sends once more (a resend is harmless) and
     * names its own job. No default: the upsert's `$inc` sets it to 1 on insert.
     */
    requests: { type: Number },
    sentAt: { type: Date, default: null },
    minedAt: { type: Date, default: null },
  },
  { collection: 'tx_broadcasts', timestamps: true, versionKey: false },
);
txBroadcastSchema.index({ userId: 1, createdAt: -1 });

export type TxBroadcastRecord = SchemaRecord<
  typeof txBroadcastSchema,
  { status: BroadcastStatus; requests: number }
>;
export type TxBroadcastModel = Model<TxBroadcastRecord>;

export function txBroadcastModel(conn: Connection): TxBroadcastModel {
  return (
    (conn.models.TxBroadcast as TxBroadcastModel | undefined) ??
    conn.model<TxBroadcastRecord>('TxBroadcast', txBroadcastSchema)
  );
}
