import { solanaWalletChallenge } from '../domains/venues/kalshi/solana-wallet.js';
import { verifySolanaWallet } from '../domains/venues/kalshi/solana-wallet-setting.js';

/**
 * How an account proves it holds the Solana wallet Kalshi's orders are signed by: a challenge, and
 * its signed copy verified and registered in the account's settings. The API's wallet endpoints
 * reach them here, never through the venue's folder.
 */
export const solanaWallets = { challenge: solanaWalletChallenge, verify: verifySolanaWallet };
