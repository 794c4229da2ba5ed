import { AppError } from '../../../infra/errors.js';
import type { WalletRegistrations } from '../venue-wallets.js';
import { solanaProofId, type SolanaWalletProofModel } from './solana-wallet-proof.model.js';

/**
 * Registering a Solana wallet without proof (PATCH settings `bot_solana_wallet`, as the official
 * client does) is allowed, but not a wallet another account has proven it holds: otherwise anyone
 * could present someone else's verified wallet (and its DFlow identity verification) as their own.
 * An owner that proved the wallet itself may always register it: one key can serve several accounts.
 */
export async function refuseWalletProvenByAnother(
  SolanaWalletProof: SolanaWalletProofModel,
  ownerKey: string,
  address: string,
): Promise<void> {
  if (!(await SolanaWalletProof.exists({ address, ownerKey: { $ne: ownerKey } }))) return;
  if (await SolanaWalletProof.exists({ _id: solanaProofId(ownerKey, address) })) return;
  throw new AppError(
    409,
    'solana_wallet_proven_elsewhere',
    `Solana wallet ${address} is proven to belong to another account`,
    `If the wallet is yours, prove it: GET /api/sdk/wallet/solana/challenge?address=${address}, sign its message with the wallet key and POST /api/sdk/wallet/solana/verify {address, signature, nonce}; otherwise register a wallet you hold.`,
  );
}

/** The check of a wallet registered in the trading settings, against the proofs in `proofs`. */
export const solanaWalletRegistrations = (proofs: SolanaWalletProofModel): WalletRegistrations => ({
  check: (ownerKey, address) => refuseWalletProvenByAnother(proofs, ownerKey, address),
});
