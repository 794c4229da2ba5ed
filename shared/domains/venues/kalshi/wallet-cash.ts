import type { VenueWalletCash } from '../../trading/venue-trading.js';
import { registeredSolanaWallet } from './solana-wallet-setting.js';
import { dflowTrading } from '../dflow/dflow-trading.js';

/**
 * The USDC in the owner's registered Solana wallet (`bot_solana_wallet`, proven or not: it is the
 * wallet Kalshi orders are quoted for), from the Solana RPC: Kalshi through DFlow settles in the
 * wallet's own USDC token accounts (kalshi.md §3.4), so the chain is where its cash is.
 */
export const kalshiWalletCash: VenueWalletCash = {
  wallet: registeredSolanaWallet,
  read: async (deps, address) => ({
    cashMicro: Number(await dflowTrading(deps).usdcBalance(address)),
    allowancesSet: null,
  }),
};
