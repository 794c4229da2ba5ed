import { Schema, type Connection, type Model } from 'mongoose';
import type { SealedSecret } from '../../../infra/secrets/envelope.js';
import type { SchemaRecord } from '../../schema-record.js';
import { CREDENTIAL_SOURCES, sealedSecretSchema, type CredentialSource } from '../../wallets/wallet.model.js';

/**
 * A user's Polymarket CLOB L2 credentials for one signer address (`_id` = `<user id>:<address>`):
 * the CLOB binds an API key to the EOA that created it, so switching wallets switches credentials.
 * The API key, secret and passphrase are sealed together; nothing here is readable without the
 * master key.
 */
const clobCredentialSchema = new Schema(
  {
    _id: { type: String, required: true },
    userId: { type: String, required: true },
    address: { type: String, required: true },
    /** `client`: sent by the client; `derived`: derived through the CLOB with the client's L1 signature; `managed`: derived with the managed key. */
    source: { type: String, enum: CREDENTIAL_SOURCES, required: true },
    sealed: { type: sealedSecretSchema, required: true },
  },
  { collection: 'clob_credentials', timestamps: true, versionKey: false },
);

export type ClobCredentialRecord = SchemaRecord<
  typeof clobCredentialSchema,
  { source: CredentialSource; sealed: SealedSecret }
>;
export type ClobCredentialModel = Model<ClobCredentialRecord>;

export function clobCredentialModel(conn: Connection): ClobCredentialModel {
  return (
    (conn.models.ClobCredential as ClobCredentialModel | undefined) ??
    conn.model<ClobCredentialRecord>('ClobCredential', clobCredentialSchema)
  );
}

/** The credentials' model, for the modules that take it beside the domains' `Models`. */
export interface ClobCredentialModels {
  ClobCredential: ClobCredentialModel;
}

export const clobCredentialId = (userId: string, address: string) => `${userId}:${address}`;
