import { Schema, type Connection, type Model } from 'mongoose';
import type { SealedSecret } from '../../infra/secrets/envelope.js';
import type { SchemaRecord } from '../schema-record.js';
import { CREDENTIAL_SOURCES, sealedSecretSchema, type CredentialSource } from './wallet.model.js';

/**
 * An agent's own Polymarket wallet (Elite, spec §5 rule 6; `_id` = the agent id, so an agent has at
 * most one): a managed secp256k1 key sealed at rest like the user's managed wallet, and the CLOB L2
 * credentials of that key, sealed too. A trade carrying its `wallet_address` is signed with it.
 */
const agentWalletSchema = new Schema(
  {
    _id: { type: String, required: true },
    /** The key's address (signer and maker of its orders), checksummed. */
    address: { type: String, required: true },
    key: { type: sealedSecretSchema, required: true },
    /** Only `managed`: new OWS (client-held key) registrations are closed (client-contract §8.5). */
    source: { type: String, enum: ['managed'], required: true, default: 'managed' },
    clobCredentials: { type: sealedSecretSchema, default: null },
    clobCredentialsSource: { type: String, enum: CREDENTIAL_SOURCES, default: null },
    /** What the client reported after setting the wallet's approvals (POST /api/sdk/agent-wallet/update-creds). */
    approvalsSet: { type: Boolean, required: true, default: false },
  },
  { collection: 'agent_wallets', timestamps: true, versionKey: false },
);
agentWalletSchema.index({ address: 1 }, { unique: true });

export type AgentWalletRecord = SchemaRecord<
  typeof agentWalletSchema,
  {
    key: SealedSecret;
    clobCredentials: SealedSecret | null;
    clobCredentialsSource: CredentialSource | null;
    createdAt: Date;
    updatedAt: Date;
  }
>;
export type AgentWalletModel = Model<AgentWalletRecord>;

export function agentWalletModel(conn: Connection): AgentWalletModel {
  return (
    (conn.models.AgentWallet as AgentWalletModel | undefined) ??
    conn.model<AgentWalletRecord>('AgentWallet', agentWalletSchema)
  );
}
