import type { Connection } from 'mongoose';
import { kalshiQuoteModel } from '../domains/venues/kalshi/kalshi-quote.model.js';
import { clobCredentialModel } from '../domains/venues/polymarket/clob-credential.model.js';
import { depositWalletBatchModel } from '../domains/venues/polymarket/onchain/deposit-wallet/deposit-wallet-batch.model.js';
import { solanaWalletProofModel } from '../domains/venues/kalshi/solana-wallet-proof.model.js';
import { walletApprovalModel } from '../domains/venues/polymarket/onchain/wallet-approval.model.js';

/**
 * The schemas a venue keeps in its own folder. The domains' registry (models.ts) sits below the
 * venues and may not name them, so the composition root adds them to the process's models. A module
 * of its own: the `Deps` type names these models, and must not pull in the venues' code with them.
 */
export function createVenueModels(conn: Connection) {
  return {
    ClobCredential: clobCredentialModel(conn),
    DepositWalletBatch: depositWalletBatchModel(conn),
    KalshiQuote: kalshiQuoteModel(conn),
    SolanaWalletProof: solanaWalletProofModel(conn),
    WalletApproval: walletApprovalModel(conn),
  };
}
export type VenueModels = ReturnType<typeof createVenueModels>;
