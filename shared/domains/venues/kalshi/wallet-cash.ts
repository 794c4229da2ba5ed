import type { VenueTrading } from '../../trading/venue-trading.js';
import { solanaWalletOf } from '../../limits/solana-wallet-setting.js';
import { dflowTrading } from '../dflow/dflow-trading.js';

/**
 * The USDC in the owner's registered Solana wallet (`bot_solana_wallet`, proven or not: it is the
 * wallet Kalshi orders are quoted for), from the Solana RPC: Kalshi through DFlow settles in the
 * wallet's own USDC token accounts (kalshi.md §3.4), so the chain is where its cash is.
 */
export const kalshiWalletCash: NonNullable<VenueTrading['walletCash']> = async (deps, owner) => {
  const wallet = await solanaWalletOf(deps, owner);
  if (!wallet) return null;
  const raw = await dflowTrading(deps).usdcBalance(wallet.address);
  return { address: wallet.address, cashMicro: Number(raw), allowancesSet: null };
};
