import type { VenueWalletCash } from '../../../trading/venue-trading.js';
import { walletFieldsOf } from '../../../wallets/wallet-view.js';
import { readWallet } from '../../../wallets/wallet-store.js';
import { readAllowances } from './allowances.js';
import { POLYGON_CONTRACTS } from './polygon-contracts.js';
import type { PolygonRpc } from './polygon-rpc.js';

/**
 * The owner's pUSD on Polygon and whether its approvals are set, for the portfolio, briefing and
 * settings. Read from the chain (`balanceOf` on the pUSD token) rather than the CLOB's
 * `GET /balance-allowance`: that call needs the wallet's L2 credentials, which a linked wallet that
 * has not traded yet does not have, while the chain answers for any wallet, managed, linked or
 * deposit wallet alike, and is what the CLOB itself checks orders against. The allowances come
 * from the allowances read (its own 30 s cache), so "set" means what `all_set` means there.
 */
export const polymarketWalletCash = (polygon: PolygonRpc): VenueWalletCash => ({
  wallet: async (deps, owner) => {
    if (owner.kind !== 'user') return null;
    const wallet = walletFieldsOf(await readWallet(deps.models, owner.id));
    // A deposit wallet (signature type 3) holds the funds its owner key trades with.
    return wallet.deposit_wallet_address ?? wallet.wallet_address;
  },
  read: async (deps, address) => {
    const [raw, allowances] = await Promise.all([
      polygon.balanceOf(POLYGON_CONTRACTS.pusd, address),
      readAllowances({ polygon, clock: deps.clock }, address, { noCache: false, includeTxParams: false }),
    ]);
    return { cashMicro: Number(raw), allowancesSet: allowances.all_set };
  },
});
