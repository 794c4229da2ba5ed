import type { Models } from '../models.js';
import type { SettingsOwner } from '../users/settings-owner.js';
import type { WalletRecord } from './wallet.model.js';
import { readWallet } from './wallet-store.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type WalletViewDeps = { models: Models };

/**
 * The wallet fields clients read from settings and agents/me (client-contract §3.2, §3.3, §8.1).
 * `wallet_address` is the wallet in use; `linked_wallet_address` only an external one (the Python
 * client compares it with its own key's address before auto-linking). A managed wallet is
 * `wallet_ownership: "native"`, the contract's name for it.
 */
export function walletFieldsOf(wallet: WalletRecord | null) {
  const external = wallet?.ownership === 'external' ? wallet.address : null;
  const usesDepositWallet = Boolean(
    wallet?.ownership === 'external' && wallet.signatureType === 3 && wallet.depositWallet,
  );
  return {
    wallet_address: wallet?.address ?? null,
    linked_wallet_address: external,
    wallet_ownership:
      wallet?.address && wallet.ownership
        ? wallet.ownership === 'managed'
          ? ('native' as const)
          : ('external' as const)
        : null,
    wallet_uses_deposit_wallet: usesDepositWallet,
    deposit_wallet_address: usesDepositWallet ? wallet!.depositWallet : null,
  };
}

export type WalletFields = ReturnType<typeof walletFieldsOf>;

/**
 * agents/me's per-agent wallet fields (client-contract §3.2), from the agent's own (Elite) wallet and
 * its account's wallet fields. `per_agent_deposit_wallet_address` is the deposit wallet the agent
 * trades through, the one its per-agent routes (`/api/user/agent/{agent_id}/wallet/external/
 * dw-approvals/*`) act on: an agent wallet is a managed EOA the service signs for, with none (active
 * false, so the client signs as that EOA); an agent without one trades with its account's wallet,
 * and so through the account's deposit wallet when that wallet uses one. `per_agent_dw_active` is
 * null only when the agent has no wallet at all.
 */
export function perAgentWalletFieldsOf(own: { address: string } | null, account: WalletFields) {
  if (own)
    return {
      per_agent_wallet_address: own.address,
      per_agent_deposit_wallet_address: null,
      per_agent_dw_active: false,
    };
  return {
    per_agent_wallet_address: null,
    per_agent_deposit_wallet_address: account.deposit_wallet_address,
    per_agent_dw_active: account.wallet_address ? account.wallet_uses_deposit_wallet : null,
  };
}

export type PerAgentWalletFields = ReturnType<typeof perAgentWalletFieldsOf>;

/** The owner's wallet fields; an unclaimed agent has no wallet (see wallet-account.ts). */
export async function walletFields(
  deps: Pick<WalletViewDeps, 'models'>,
  owner: Pick<SettingsOwner, 'kind' | 'id'>,
): Promise<WalletFields> {
  return walletFieldsOf(owner.kind === 'user' ? await readWallet(deps.models, owner.id) : null);
}

/**
 * Settings' `has_legacy_wallet`: the owner has a managed wallet (a key this service holds) while an
 * external wallet of theirs is the one in use. The managed wallet is then the legacy one: orders no
 * longer use it, but it may still hold funds, and it takes over again if the external one is unlinked.
 */
export const hasLegacyWallet = (wallet: WalletRecord | null): boolean =>
  Boolean(wallet?.managed && wallet.ownership === 'external');
