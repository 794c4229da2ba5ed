import type { InfraDeps } from '../../../infra/infra-deps.js';
import { AppError } from '../../../infra/errors.js';
import { verifyEd25519 } from '../../../util/ed25519.js';
import type { Models } from '../../models.js';
import type { SettingsOwner } from '../../users/settings-owner.js';
import type { TierCache } from '../../users/tier-cache.js';
import { takeChallenge } from '../../wallets/wallet-link.js';
import type { SettingsCache } from '../../limits/settings-cache.js';
import {
  currentSettings,
  updateSettings,
  type SettingsActor,
  type UpdateSettingsDeps,
} from '../../limits/trading-settings.js';
import { challengeFix, signatureBytes, solanaWalletAddress } from './solana-wallet.js';
import {
  solanaProofId,
  type SolanaWalletProofModel,
  type SolanaWalletProofModels,
} from './solana-wallet-proof.model.js';

/**
 * The Solana wallet an account trades Kalshi from is a trading setting (`solanaWalletAddress`):
 * proving a wallet registers it there, and the trade path reads it from there with its proof.
 */

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type SolanaWalletSettingDeps = Pick<InfraDeps, 'env' | 'redis' | 'invalidation' | 'clock'> & {
  models: Models & SolanaWalletProofModels;
  caches: SettingsCache & TierCache;
};

/** What proving a wallet uses: the settings it registers the wallet in, with their checks. */
export type VerifySolanaWalletDeps = SolanaWalletSettingDeps & UpdateSettingsDeps;

/**
 * `POST /api/sdk/wallet/solana/verify`: the wallet signed the challenge → it is proven to be this
 * account's, and registered as its Solana wallet (read back as solana_wallet_address).
 */
export async function verifySolanaWallet(
  deps: VerifySolanaWalletDeps,
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

/** The owner's registered Solana wallet (proven or not), or null. */
export const registeredSolanaWallet = async (
  deps: Parameters<typeof currentSettings>[0],
  owner: SettingsOwner,
): Promise<string | null> => (await currentSettings(deps, owner)).solanaWalletAddress || null;

/** The owner's registered Solana wallet and whether its ownership was proven. */
export async function solanaWalletOf(
  deps: SolanaWalletSettingDeps,
  owner: SettingsOwner,
): Promise<{ address: string; proven: boolean } | null> {
  const address = await registeredSolanaWallet(deps, owner);
  if (!address) return null;
  const proof = await deps.models.SolanaWalletProof.exists({ _id: solanaProofId(owner.key, address) });
  return { address, proven: proof !== null };
}

/** `deps` with the proofs' model beside the domains' models (the venue's trading holds it). */
export const withProofs = <D extends { models: object }>(deps: D, proofs: SolanaWalletProofModel) => ({
  ...deps,
  models: { ...deps.models, SolanaWalletProof: proofs },
});
