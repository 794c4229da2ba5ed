import { Schema, type Connection, type Model } from 'mongoose';
import type { SchemaRecord } from '../../../schema-record.js';

/**
 * `pending`: approvals sent and not all mined yet (or not all sent: the next trade goes on);
 * `approved`: every approval the venue needs is on chain; `failed`: the last attempt stopped, with
 * its reason (the next trade resumes from the transactions recorded here).
 */
export const WALLET_APPROVAL_STATUSES = ['pending', 'approved', 'failed'] as const;
export type WalletApprovalStatus = (typeof WALLET_APPROVAL_STATUSES)[number];

const approvalTxSchema = new Schema(
  {
    /** The allowance the transaction sets (`pusd_<spender>`, `ctf_<operator>`). */
    key: { type: String, required: true },
    /** Its TxBroadcast record. */
    hash: { type: String, required: true },
  },
  { _id: false },
);

/**
 * The one-time trading approvals of a wallet the service holds the key of (`_id` = its address,
 * lowercase), set by the service before the wallet's first order. The signed transactions are
 * recorded here before they are sent, so that a retry after a failure or a crash re-sends them
 * instead of signing new ones.
 */
const walletApprovalSchema = new Schema(
  {
    _id: { type: String, required: true },
    userId: { type: String, required: true },
    /** The wallet, checksummed. */
    address: { type: String, required: true },
    status: { type: String, enum: WALLET_APPROVAL_STATUSES, required: true },
    error: { type: String, default: null },
    txs: { type: [approvalTxSchema], default: [] },
    /** The gas the service's sponsor sent the wallet for its approvals, when it had too little. */
    gasTopUpTx: { type: String, default: null },
    attempts: { type: Number, required: true, default: 0 },
    approvedAt: { type: Date, default: null },
  },
  { collection: 'wallet_approvals', timestamps: true, versionKey: false },
);
walletApprovalSchema.index({ userId: 1 });

export type WalletApprovalRecord = SchemaRecord<
  typeof walletApprovalSchema,
  { status: WalletApprovalStatus; txs: { key: string; hash: string }[] }
>;
export type WalletApprovalModel = Model<WalletApprovalRecord>;

/** The models of the approvals, for the modules that take them beside the domains' `Models`. */
export interface WalletApprovalModels {
  WalletApproval: WalletApprovalModel;
}

export function walletApprovalModel(conn: Connection): WalletApprovalModel {
  return (
    (conn.models.WalletApproval as WalletApprovalModel | undefined) ??
    conn.model<WalletApprovalRecord>('WalletApproval', walletApprovalSchema)
  );
}
