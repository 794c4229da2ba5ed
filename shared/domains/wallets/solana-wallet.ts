import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';
import type { SettingsCache } from '../limits/settings-cache.js';
import { PublicKey } from '@solana/web3.js';
import { publicBaseUrl } from '../../infra/config/env.js';
import { AppError, invalidField } from '../../infra/errors.js';
import type { SettingsOwner } from '../limits/settings-owner.js';
import { currentSettings, updateSettings, type SettingsActor } from '../limits/trading-settings.js';
import { fromBase58 } from '../../util/base58.js';
import { verifyEd25519 } from '../../util/ed25519.js';
import { issueChallenge } from './wallet-challenge.js';
import { takeChallenge } from './wallet-link.js';
import { solanaProofId } from './solana-wallet-proof.model.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type SolanaWalletDeps = Pick<InfraDeps, 'env' | 'redis' | 'invalidation' | 'clock'> & {
  models: Models;
  caches: SettingsCache;
};

/**
 * The Solana wallet an account trades Kalshi from. `PATCH /api/sdk/user/settings
 * {"bot_solana_wallet"}` registers it as the official client does (no proof); the stronger path
 * proves ownership by signing a single-use challenge with the wallet's ed25519 key (kalshi.md §3.2).
 * KYC is a separate matter: DFlow Proof, read through GET /api/proof/status (the Kalshi venue's).
 */

/** Where a wallet completes DFlow's identity verification (Proof). */
export const proofVerifyUrl = (wallet: string) =>
  `https://dflow.net/proof?wallet=${encodeURIComponent(wallet)}`;

const challengeFix = (address: string) =>
  `Get a fresh challenge (GET /api/sdk/wallet/solana/challenge?address=${address}), sign its message with that wallet (ed25519, e.g. nacl.sign.detached or signMessage) and send it to POST /api/sdk/wallet/solana/verify within 5 minutes.`;

/** How an agent proves it owns the registered wallet: worded for answers that point at it. */
export const PROVE_OWNERSHIP_HINT =
  'Prove you own the wallet: GET /api/sdk/wallet/solana/challenge?address=<wallet>, sign its message with the wallet key, then POST /api/sdk/wallet/solana/verify {address, signature, nonce}.';

/** A wallet address: base58 of an ed25519 public key on the curve (a program address is not a wallet). */
export function solanaWalletAddress(address: string): string {
  try {
    const key = new PublicKey(address);
    if (PublicKey.isOnCurve(key.toBytes()) && key.toBase58() === address) return address;
  } catch {
    // falls through to the refusal
  }
  throw invalidField(
    'address',
    'not a Solana wallet address (a base58 ed25519 public key)',
    address,
    'Send the base58 public key of your Solana wallet (e.g. Keypair.publicKey.toBase58()).',
  );
}

/** `GET /api/sdk/wallet/solana/challenge`: the text the wallet signs, bound to this service, the address and a nonce. */
export async function solanaWalletChallenge(deps: SolanaWalletDeps, owner: SettingsOwner, raw: string) {
  const address = solanaWalletAddress(raw);
  const base = publicBaseUrl(deps.env);
  return issueChallenge(deps, owner.key, address, (nonce, issuedAt, expiresAt) =>
    [
      `${new URL(base).host} wants you to prove you own this Solana wallet:`,
      address,
      '',
      'Register this wallet for Kalshi trading on your agent trading account.',
      '',
      `URI: ${base}`,
      `Nonce: ${nonce}`,
      `Issued At: ${issuedAt.toISOString()}`,
      `Expiration Time: ${expiresAt.toISOString()}`,
    ].join('\n'),
  );
}

/** A 64-byte signature sent as base58 (the Solana way) or base64. */
function signatureBytes(text: string): Uint8Array | null {
  const b58 = fromBase58(text);
  if (b58?.length === 64) return b58;
  const b64 = Buffer.from(text, 'base64');
  return b64.length === 64 ? new Uint8Array(b64) : null;
}

/**
 * `POST /api/sdk/wallet/solana/verify`: the wallet signed the challenge → it is proven to be this
 * account's, and registered as its Solana wallet (read back as solana_wallet_address).
 */
export async function verifySolanaWallet(
  deps: SolanaWalletDeps,
  owner: SettingsOwner,
  actor: SettingsActor,
  input: { address: string; signature: string; nonce: string },
) {
  const address = solanaWalletAddress(input.address);
  const fix = challengeFix(address);
  const challenge = await takeChallenge(deps, owner.key, input.nonce, address, fix);
  const signature = signatureBytes(input.signature);
  if (!signature || !verifyEd25519(address, new TextEncoder().encode(challenge.message), signature))
    throw new AppError(
      400,
      'signature_mismatch',
      `Signature does not match address: it is not ${address}'s ed25519 signature of the challenge`,
      `Sign the UTF-8 bytes of the challenge's message exactly as returned, with the key of ${address}, and send the 64-byte signature as base58 or base64. ${fix}`,
    );
  await deps.models.SolanaWalletProof.updateOne(
    { _id: solanaProofId(owner.key, address) },
    { $set: { ownerKey: owner.key, address, nonce: input.nonce } },
    { upsert: true },
  );
  await updateSettings(deps, owner, { bot_solana_wallet: address }, actor);
  return {
    success: true as const,
    solana_wallet_address: address,
    ownership_verified: true,
    message: `Solana wallet ${address} is registered and proven to be yours. Kalshi buys also need DFlow identity verification (GET /api/proof/status?wallet=${address}).`,
  };
}

/** The owner's registered Solana wallet and whether its ownership was proven. */
export async function solanaWalletOf(
  deps: SolanaWalletDeps,
  owner: SettingsOwner,
): Promise<{ address: string; proven: boolean } | null> {
  const settings = await currentSettings(deps, owner);
  const address = settings.solanaWalletAddress;
  if (!address) return null;
  const proof = await deps.models.SolanaWalletProof.exists({ _id: solanaProofId(owner.key, address) });
  return { address, proven: proof !== null };
}
