import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Wallet as EthersWallet } from 'ethers';
import { AppError } from '../../infra/errors.js';
import type { Models } from '../models.js';
import type { SettingsOwner } from '../users/settings-owner.js';
import { polyProxyAddress, polySafeAddress } from './funder-address.js';
import { newSealedKey, openSealedKey } from './sealed-key.js';
import type { SignatureType, WalletOwnership, WalletRecord } from './wallet.model.js';
import { readWallet, writeWallet } from './wallet-store.js';
import { walletFieldsOf } from './wallet-view.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type ManagedWalletDeps = Pick<InfraDeps, 'env' | 'log' | 'clock'> & { models: Models };

type WalletDeps = Pick<ManagedWalletDeps, 'models' | 'env' | 'clock'>;

/** The sealed key opens only on the record it was sealed for. */
const managedKeyContext = (userId: string, address: string) => `managed-wallet:${userId}:${address}`;

/**
 * Creates the user's managed wallet (a fresh secp256k1 key, sealed at rest) unless they have one,
 * and makes it the wallet in use when no wallet is. An external wallet that is in use stays in use:
 * the managed one takes over when it is unlinked. Concurrent calls create one key.
 */
export async function createManagedWallet(
  deps: WalletDeps,
  userId: string,
): Promise<{ wallet: WalletRecord; created: boolean }> {
  for (let attempt = 0; ; attempt++) {
    const current = await readWallet(deps.models, userId);
    if (current?.managed) return { wallet: current, created: false };
    const { signer, sealed } = newSealedKey(deps.env, (address) => managedKeyContext(userId, address));
    const now = deps.clock();
    const managed = { ...sealed, createdAt: now };
    const inUse = current?.address
      ? {}
      : {
          address: signer.address,
          ownership: 'managed' as const,
          signatureType: 0 as const,
          depositWallet: null,
          linkedAt: now,
        };
    try {
      return {
        wallet: await writeWallet(deps.models, userId, current, { managed, ...inUse }),
        created: true,
      };
    } catch (err) {
      // Another request changed the wallet meanwhile (perhaps creating the key): look again.
      if (attempt < 3 && err instanceof AppError && err.code === 'wallet_changed') continue;
      throw err;
    }
  }
}

/** `POST /api/sdk/wallet/managed`. */
export async function requestManagedWallet(deps: WalletDeps, userId: string) {
  const { wallet, created } = await createManagedWallet(deps, userId);
  const inUse = wallet.ownership === 'managed';
  return {
    success: true as const,
    ...walletFieldsOf(wallet),
    managed_wallet_address: wallet.managed!.address,
    created,
    message: inUse
      ? `Managed wallet ${wallet.managed!.address} is your trading wallet: the service signs your orders. Fund it with pUSD on Polygon.`
      : `Managed wallet ${wallet.managed!.address} is ready; your external wallet ${wallet.address} stays in use until you unlink it (POST /api/sdk/wallet/unlink).`,
  };
}

/**
 * The claim gives a human a wallet to trade with: a managed one, when they have none yet. Best
 * effort: the claim has happened whatever this does, and `POST /api/sdk/wallet/managed` or the next
 * claim creates the wallet if it fails here.
 */
export async function ensureWalletOnClaim(deps: WalletDeps & Pick<ManagedWalletDeps, 'log'>, userId: string) {
  try {
    const current = await readWallet(deps.models, userId);
    if (current?.address || current?.managed) return;
    await createManagedWallet(deps, userId);
  } catch (err) {
    deps.log.warn({ err: (err as Error).message, user_id: userId }, 'managed wallet not created at claim');
  }
}

/**
 * For the trading engine: the user's managed signer (an ethers v6 Wallet, in memory only), or null
 * when the user has no managed wallet. Connect it to a provider with `signer.connect(provider)`.
 */
export async function managedSigner(
  deps: Pick<ManagedWalletDeps, 'models' | 'env'>,
  userId: string,
): Promise<EthersWallet | null> {
  const wallet = await deps.models.Wallet.findById(userId, { managed: 1 }).lean();
  const managed = wallet?.managed as WalletRecord['managed'] | undefined;
  if (!managed) return null;
  return openSealedKey(
    deps.env,
    managed,
    managedKeyContext(userId, managed.address),
    `managed wallet of user ${userId}`,
  );
}

export interface OwnerWallet {
  /** The signer (EOA) address, checksummed. */
  address: string;
  ownership: WalletOwnership;
  signatureType: SignatureType;
  /** The deposit wallet (maker of type-3 orders), when the owner trades through one. */
  depositWallet: string | null;
  /**
   * The order's `maker` (funder): the EOA itself (type 0), its Polymarket proxy (1) or Safe (2),
   * derived from the EOA (polymarket.md §9.2), or the deposit wallet (3).
   */
  maker: string;
}

/**
 * For the trading engine: the wallet the owner trades with, or null (no wallet, or an unclaimed
 * agent: real trading needs a claimed agent, whose owner is its human).
 */
export async function walletOf(
  deps: { models: Models },
  owner: Pick<SettingsOwner, 'kind' | 'id'>,
): Promise<OwnerWallet | null> {
  if (owner.kind !== 'user') return null;
  const wallet = await readWallet(deps.models, owner.id);
  if (!wallet?.address || !wallet.ownership) return null;
  const managed = wallet.ownership === 'managed';
  const signatureType = managed ? 0 : (wallet.signatureType ?? 0);
  const depositWallet = !managed && signatureType === 3 ? wallet.depositWallet : null;
  const maker =
    signatureType === 1
      ? polyProxyAddress(wallet.address)
      : signatureType === 2
        ? polySafeAddress(wallet.address)
        : (depositWallet ?? wallet.address);
  return { address: wallet.address, ownership: wallet.ownership, signatureType, depositWallet, maker };
}
