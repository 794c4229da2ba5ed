import type { InfraDeps } from '../../../infra/infra-deps.js';
import type { Models } from '../../models.js';
import type { WalletCredentials } from '../../wallets/wallet-credentials.js';
import { getAddress, type Wallet as EthersWallet } from 'ethers';
import { AppError } from '../../../infra/errors.js';
import type { SealedSecret } from '../../../infra/secrets/envelope.js';
import { secretBox } from '../../../infra/secrets/master-key.js';
import type { SettingsOwner } from '../../users/settings-owner.js';
import type { CredentialSource } from '../../wallets/wallet.model.js';
import { clobCredentialId, type ClobCredentialModels } from './clob-credential.model.js';
import { deriveClobApiKey, signClobAuth, type ClobApiCreds } from './clob-auth.js';
import { managedSigner, walletOf } from '../../wallets/managed-wallet.js';
import { walletUserOf, type WalletAccount } from '../../wallets/wallet-account.js';
import type { ClobCredentialsRequest, DeriveViaProxyRequest } from '../../wallets/wallet.schemas.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type ClobCredentialsDeps = Pick<InfraDeps, 'env' | 'log' | 'metrics' | 'clock'> & {
  models: Models & ClobCredentialModels;
};

type CredsDeps = Pick<ClobCredentialsDeps, 'models' | 'env'>;

/** The sealed credentials open only on the record (user and signer address) they were stored for. */
const credentialsContext = (userId: string, address: string) => `clob-credentials:${userId}:${address}`;

const noWallet = () =>
  new AppError(
    409,
    'wallet_not_linked',
    'No wallet is linked to this account',
    'Link your wallet first (GET /api/sdk/wallet/link/challenge, then POST /api/sdk/wallet/link); CLOB credentials belong to the wallet that signs your orders.',
  );

/** L2 credentials sealed under `context` (the record they belong to): key, secret and passphrase together. */
export const sealClobCredentials = (env: CredsDeps['env'], creds: ClobApiCreds, context: string) =>
  secretBox(env).seal(
    JSON.stringify({ apiKey: creds.apiKey, secret: creds.secret, passphrase: creds.passphrase }),
    context,
  );

/** Sealed L2 credentials opened in memory (never log or return them), with the signer they belong to. */
export const openClobCredentials = (
  env: CredsDeps['env'],
  sealed: SealedSecret,
  context: string,
  address: string,
): ClobCredentials => {
  const creds = JSON.parse(secretBox(env).openString(sealed, context)) as ClobApiCreds;
  return { apiKey: creds.apiKey, secret: creds.secret, passphrase: creds.passphrase, address };
};

/** L2 credentials of a key the service holds, derived (or created) at the CLOB with its L1 signature. */
export async function deriveClobCredentialsWith(
  deps: Pick<ClobCredentialsDeps, 'env' | 'log' | 'metrics' | 'clock'>,
  signer: EthersWallet,
): Promise<ClobCredentials> {
  const headers = await signClobAuth(signer, Math.floor(deps.clock().getTime() / 1000));
  return { ...(await deriveClobApiKey(deps, headers)), address: signer.address };
}

async function store(
  deps: CredsDeps,
  userId: string,
  address: string,
  creds: ClobApiCreds,
  source: CredentialSource,
) {
  const id = clobCredentialId(userId, address);
  const sealed = sealClobCredentials(deps.env, creds, credentialsContext(userId, address));
  await deps.models.ClobCredential.updateOne(
    { _id: id },
    { $set: { userId, address, source, sealed } },
    { upsert: true },
  );
}

/** The wallet the account's credentials belong to (its signer), or the refusal when there is none. */
async function signerAddressOf(deps: CredsDeps, account: WalletAccount) {
  const userId = walletUserOf(account);
  const wallet = await walletOf(deps, account.owner);
  if (!wallet) throw noWallet();
  return { userId, address: wallet.address };
}

/** `GET /api/sdk/wallet/credentials/check`. An unclaimed agent has no wallet, hence none. */
export async function hasClobCredentials(
  deps: CredsDeps,
  account: { owner: Pick<SettingsOwner, 'kind' | 'id'> },
) {
  const wallet = await walletOf(deps, account.owner);
  if (!wallet) return false;
  return Boolean(
    await deps.models.ClobCredential.exists({ _id: clobCredentialId(account.owner.id, wallet.address) }),
  );
}

export async function checkClobCredentials(deps: CredsDeps, account: WalletAccount) {
  const wallet = await walletOf(deps, account.owner);
  return {
    has_credentials: await hasClobCredentials(deps, account),
    wallet_address: wallet?.address ?? null,
  };
}

const stored = (address: string, source: 'client' | 'derived') => ({
  success: true as const,
  has_credentials: true as const,
  wallet_address: address,
  source,
  message: `CLOB credentials stored for ${address} (encrypted at rest; they are never shown again).`,
});

/** `POST /api/sdk/wallet/credentials`: L2 credentials the client derived itself, for the wallet linked here. */
export async function storeClobCredentials(
  deps: CredsDeps,
  account: WalletAccount,
  input: ClobCredentialsRequest,
) {
  const { userId, address } = await signerAddressOf(deps, account);
  await store(
    deps,
    userId,
    address,
    { apiKey: input.api_key, secret: input.api_secret, passphrase: input.api_passphrase },
    'client',
  );
  return stored(address, 'client');
}

/**
 * `POST /api/sdk/wallet/credentials/derive-via-proxy`: the client signed the CLOB's L1 ClobAuth
 * message; this service sends it to the CLOB (`GET /auth/derive-api-key`) and keeps the answer.
 * The signer must be the wallet linked here: credentials are bound to the EOA that derived them.
 */
export async function deriveClobCredentialsViaProxy(
  deps: CredsDeps & Pick<ClobCredentialsDeps, 'log' | 'metrics'>,
  account: WalletAccount,
  input: DeriveViaProxyRequest,
) {
  const { userId, address } = await signerAddressOf(deps, account);
  const polyAddress = getAddress(input.poly_address);
  if (polyAddress !== address)
    throw new AppError(
      409,
      'wallet_mismatch',
      `poly_address ${polyAddress} is not the wallet linked to this account (${address})`,
      `Sign the ClobAuth message with the linked wallet ${address}, or link ${polyAddress} first (POST /api/sdk/wallet/link).`,
    );
  const creds = await deriveClobApiKey(deps, {
    address: polyAddress,
    signature: input.poly_signature,
    timestamp: String(input.poly_timestamp),
    nonce: String(input.poly_nonce),
  });
  await store(deps, userId, address, creds, 'derived');
  return stored(address, 'derived');
}

/** Drops the credentials of `address` (its wallet was unlinked). */
export async function forgetClobCredentials(
  deps: Pick<ClobCredentialsDeps, 'models'>,
  userId: string,
  address: string,
) {
  await deps.models.ClobCredential.deleteOne({ _id: clobCredentialId(userId, address) });
}

export interface ClobCredentials {
  apiKey: string;
  secret: string;
  passphrase: string;
  /** The signer (EOA) they belong to: POLY_ADDRESS of L2 requests. */
  address: string;
}

/**
 * For the trading engine: the owner's L2 credentials for the wallet they trade with, decrypted in
 * memory only (never log or return them), or null when the owner has no wallet or no credentials
 * for it.
 */
export async function clobCredentialsFor(
  deps: CredsDeps,
  owner: Pick<SettingsOwner, 'kind' | 'id'>,
): Promise<ClobCredentials | null> {
  const wallet = await walletOf(deps, owner);
  if (!wallet) return null;
  const doc = await deps.models.ClobCredential.findById(clobCredentialId(owner.id, wallet.address)).lean();
  if (!doc) return null;
  return openClobCredentials(
    deps.env,
    doc.sealed,
    credentialsContext(owner.id, wallet.address),
    wallet.address,
  );
}

/**
 * For the trading engine: L2 credentials of the user's managed wallet, derived (or created) at the
 * CLOB with an L1 signature of the managed key, stored sealed, and returned in memory. Null when the
 * user has no managed wallet.
 */
export async function deriveManagedClobCredentials(
  deps: CredsDeps & Pick<ClobCredentialsDeps, 'log' | 'metrics' | 'clock'>,
  userId: string,
): Promise<ClobCredentials | null> {
  const signer = await managedSigner(deps, userId);
  if (!signer) return null;
  const creds = await deriveClobCredentialsWith(deps, signer);
  await store(deps, userId, signer.address, creds, 'managed');
  return creds;
}

/** The CLOB credentials as the wallet links see them (deps.walletCredentials). */
export const clobWalletCredentials = (deps: CredsDeps): WalletCredentials => ({
  has: (owner) => hasClobCredentials(deps, { owner }),
  forget: (userId, address) => forgetClobCredentials(deps, userId, address),
});
