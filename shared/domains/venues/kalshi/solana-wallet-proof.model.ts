import { Schema, type Connection, type Model } from 'mongoose';
import type { SchemaRecord } from '../../schema-record.js';

/**
 * A Solana wallet whose ownership a settings owner proved by signing the service's challenge
 * (kalshi.md §3.2). `_id` = `<owner key>|<address>`: the proof holds for that owner and wallet only,
 * so registering another wallet (PATCH /api/sdk/user/settings) leaves it unproven until signed for.
 */
const solanaWalletProofSchema = new Schema(
  {
    _id: { type: String, required: true },
    ownerKey: { type: String, required: true },
    address: { type: String, required: true },
    nonce: { type: String, required: true },
  },
  { collection: 'solana_wallet_proofs', timestamps: true, versionKey: false },
);
// Who else proved a wallet: registering it without proof is refused then (solana-wallet-guard.ts).
solanaWalletProofSchema.index({ address: 1 });

export type SolanaWalletProofRecord = SchemaRecord<typeof solanaWalletProofSchema>;
export type SolanaWalletProofModel = Model<SolanaWalletProofRecord>;

/** The proofs' model, for the modules that take it beside the domains' `Models`. */
export interface SolanaWalletProofModels {
  SolanaWalletProof: SolanaWalletProofModel;
}

export const solanaProofId = (ownerKey: string, address: string) => `${ownerKey}|${address}`;

export function solanaWalletProofModel(conn: Connection): SolanaWalletProofModel {
  return (
    (conn.models.SolanaWalletProof as SolanaWalletProofModel | undefined) ??
    conn.model<SolanaWalletProofRecord>('SolanaWalletProof', solanaWalletProofSchema)
  );
}
