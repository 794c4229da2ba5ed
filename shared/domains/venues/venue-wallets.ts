/**
 * What the venues check of a wallet an account registers in its trading settings
 * (`bot_solana_wallet`): a venue whose traders prove they hold their wallet refuses one that another
 * account proved to be its own. The composition root builds it from the venues that keep such proofs.
 */
export interface WalletRegistrations {
  /** Resolves when `ownerKey` may register `address`; otherwise throws the venue's refusal. */
  check(ownerKey: string, address: string): Promise<void>;
}
