import { Schema, type Connection, type Model } from 'mongoose';
import type { SchemaRecord } from '../../../../schema-record.js';
import {
  DEPOSIT_WALLET_BATCH_STATUSES,
  type DepositWalletBatchStatus,
} from '../../../../wallets/wallet.model.js';

/** What a batch does: the wallet's trading approvals, wrapping its USDC.e into pUSD, or a redemption. */
export const DEPOSIT_WALLET_BATCH_KINDS = ['approvals', 'wrap', 'redeem'] as const;
export type DepositWalletBatchKind = (typeof DEPOSIT_WALLET_BATCH_KINDS)[number];

const callSchema = new Schema(
  {
    target: { type: String, required: true },
    value: { type: String, required: true },
    data: { type: String, required: true },
  },
  { _id: false },
);

/**
 * A batch of calls the service built for a deposit wallet (`_id` = its EIP-712 digest, which covers
 * wallet, nonce, deadline and calls). The relay only submits batches recorded here: whatever a
 * client sends back must be, call for call, what the service prepared for that wallet.
 */
const depositWalletBatchSchema = new Schema(
  {
    _id: { type: String, required: true },
    userId: { type: String, required: true },
    kind: { type: String, enum: DEPOSIT_WALLET_BATCH_KINDS, required: true },
    /** The deposit wallet (checksummed) and the owner EOA that signs for it. */
    wallet: { type: String, required: true },
    owner: { type: String, required: true },
    nonce: { type: String, required: true },
    deadline: { type: String, required: true },
    calls: { type: [callSchema], required: true },
    /** A redemption's market; a wrap's USDC.e amount in base units. */
    marketId: { type: String, default: null },
    amountUnits: { type: String, default: null },
    status: { type: String, enum: DEPOSIT_WALLET_BATCH_STATUSES, required: true },
    relayerTxId: { type: String, default: null },
    txHash: { type: String, default: null },
    error: { type: String, default: null },
  },
  { collection: 'deposit_wallet_batches', timestamps: true, versionKey: false },
);
depositWalletBatchSchema.index({ wallet: 1, createdAt: -1 });

export type DepositWalletBatchRecord = SchemaRecord<
  typeof depositWalletBatchSchema,
  { kind: DepositWalletBatchKind; status: DepositWalletBatchStatus }
>;
export type DepositWalletBatchModel = Model<DepositWalletBatchRecord>;

/** The batches' model, for the modules that take it beside the domains' `Models`. */
export interface DepositWalletBatchModels {
  DepositWalletBatch: DepositWalletBatchModel;
}

export function depositWalletBatchModel(conn: Connection): DepositWalletBatchModel {
  return (
    (conn.models.DepositWalletBatch as DepositWalletBatchModel | undefined) ??
    conn.model<DepositWalletBatchRecord>('DepositWalletBatch', depositWalletBatchSchema)
  );
}
