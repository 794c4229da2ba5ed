import type { SettingsOwner } from '../users/settings-owner.js';

/**
 * The API credentials a venue keeps for the wallet an account trades with (an exchange that binds
 * its keys to the signer that made them): linking a wallet reports whether they are there, and
 * unlinking it drops them. The composition root builds it from the venue that keeps them.
 */
export interface WalletCredentials {
  /** Whether the owner's trading wallet has credentials stored (false without a wallet). */
  has(owner: Pick<SettingsOwner, 'kind' | 'id'>): Promise<boolean>;
  /** Drops the credentials of `address`, the user's wallet that was unlinked. */
  forget(userId: string, address: string): Promise<void>;
}
