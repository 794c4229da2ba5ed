import type { InfraDeps } from '../../../infra/infra-deps.js';
import type { Models } from '../../models.js';
import { PublicKey } from '@solana/web3.js';
import { publicBaseUrl } from '../../../infra/config/env.js';
import { invalidField } from '../../../infra/errors.js';
import type { SettingsOwner } from '../../users/settings-owner.js';
import { fromBase58 } from '../../../util/base58.js';
import { issueChallenge } from '../../wallets/wallet-challenge.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type SolanaWalletDeps = Pick<InfraDeps, 'env' | 'redis' | 'clock'> & { models: Models };

/**
 * The Solana wallet an account trades Kalshi from. `PATCH /api/sdk/user/settings
 * {"bot_solana_wallet"}` registers it as the official client does (no proof); the stronger path
 * proves ownership by signing a single-use challenge with the wallet's ed25519 key (kalshi.md §3.2).
 * KYC is a separate matter: DFlow Proof, read through GET /api/proof/status (the Kalshi venue's).
 */

/** Where a wallet completes DFlow's identity verification (Proof). */
export const proofVerifyUrl = (wallet: string) =>
  `https://dflow.net/proof?wallet=${encodeURIComponent(wallet)}`;

export const challengeFix = (address: string) =>
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
export function signatureBytes(text: string): Uint8Array | null {
  const b58 = fromBase58(text);
  if (b58?.length === 64) return b58;
  const b64 = Buffer.from(text, 'base64');
  return b64.length === 64 ? new Uint8Array(b64) : null;
}
