import { Schema, type Connection, type Model } from 'mongoose';
import type { SealedSecret } from '../../infra/secrets/envelope.js';
import type { SchemaRecord } from '../schema-record.js';

export const WALLET_OWNERSHIPS = ['external', 'managed'] as const;
export type WalletOwnership = (typeof WALLET_OWNERSHIPS)[number];

/** Polymarket signature types (reference §6.3): 0 EOA, 1 POLY_PROXY, 2 POLY_GNOSIS_SAFE, 3 POLY_1271 (deposit wallet). */
export const SIGNATURE_TYPES = [0, 1, 2, 3] as const;
export type SignatureType = (typeof SIGNATURE_TYPES)[number];

/**
 * How a venue's API credentials were obtained: `client`: sent by the client; `derived`: derived at
 * the venue with the client's signature; `managed`: derived with a key the service holds.
 */
export const CREDENTIAL_SOURCES = ['client', 'derived', 'managed'] as const;
export type CredentialSource = (typeof CREDENTIAL_SOURCES)[number];

/**
 * The statuses of a batch of calls the service prepared for a deposit wallet (the relay records
 * the batches, deposit-wallet-batch.model.ts; the API answers their status). `prepared`: handed to
 * the owner to sign; `submitting`: its signature arrived and it is on its way to the relayer (one
 * submission at a time); `submitted`: the relayer took it, its outcome was not known when we
 * stopped waiting; `executed`: the relayer executed it; `failed`: refused or reverted (the
 * wallet's nonce was not used: the same signed batch may be submitted again until its deadline).
 */
export const DEPOSIT_WALLET_BATCH_STATUSES = [
  'prepared',
  'submitting',
  'submitted',
  'executed',
  'failed',
] as const;
export type DepositWalletBatchStatus = (typeof DEPOSIT_WALLET_BATCH_STATUSES)[number];

/** A sealed secret as stored (shared/infra/secrets/envelope.ts): ciphertext only. */
export const sealedSecretSchema = new Schema(
  {
    v: { type: Number, required: true },
    kid: { type: String, required: true },
    dk: { type: String, required: true },
    iv: { type: String, required: true },
    tag: { type: String, required: true },
    ct: { type: String, required: true },
  },
  { _id: false },
);

/** The key of the user's managed wallet, sealed; kept when an external wallet takes over (it may hold funds). */
const managedKeySchema = new Schema(
  {
    address: { type: String, required: true },
    key: { type: sealedSecretSchema, required: true },
    createdAt: { type: Date, required: true },
  },
  { _id: false },
);

/**
 * A user's Polymarket wallet (`_id` = the user id: a wallet belongs to the human, and every agent
 * they claimed trades with it). `address` is the wallet in use: the external EOA that signed the
 * link challenge, or the managed key's address. Changed only by updates guarded on `version`.
 */
const walletSchema = new Schema(
  {
    _id: { type: String, required: true },
    /** The signer (EOA) in use, checksummed; null when the user has none. */
    address: { type: String, default: null },
    ownership: { type: String, enum: WALLET_OWNERSHIPS, default: null },
    /** How orders are signed for an external wallet; a managed wallet signs as an EOA (0). */
    signatureType: { type: Number, enum: SIGNATURE_TYPES, default: null },
    /** The deposit wallet (maker of type-3 orders) linked with the EOA, when active. */
    depositWallet: { type: String, default: null },
    linkedAt: { type: Date, default: null },
    managed: { type: managedKeySchema, default: null },
    version: { type: Number, required: true, default: 0 },
  },
  { collection: 'wallets', timestamps: true, versionKey: false },
);
// "Is this address already some other user's wallet?"
walletSchema.index({ address: 1 });

type ManagedKey = { address: string; key: SealedSecret; createdAt: Date };

// The sealed subdocument is typed by the envelope's own type; a managed key is written whole.
export type WalletRecord = SchemaRecord<
  typeof walletSchema,
  {
    ownership: WalletOwnership | null;
    signatureType: SignatureType | null;
    managed: ManagedKey | null;
  }
>;
export type WalletModel = Model<WalletRecord>;

export function walletModel(conn: Connection): WalletModel {
  return (conn.models.Wallet as WalletModel | undefined) ?? conn.model<WalletRecord>('Wallet', walletSchema);
}
