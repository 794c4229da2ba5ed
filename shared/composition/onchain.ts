import { readAllowances } from '../domains/venues/polymarket/onchain/allowances.js';
import { enqueueAutoRedemptions } from '../domains/venues/polymarket/onchain/auto-redeem.js';
import { broadcastTx, listBroadcasts } from '../domains/venues/polymarket/onchain/broadcast-tx.js';
import { followReceipt, sendBroadcast } from '../domains/venues/polymarket/onchain/broadcast-worker.js';
import { redeem, reportRedemption } from '../domains/venues/polymarket/onchain/redeem.js';
import {
  prepareDepositWalletRedeem,
  submitDepositWalletRedeem,
} from '../domains/venues/polymarket/onchain/deposit-wallet/dw-redeem.js';
import { depositWalletAddress } from '../domains/venues/polymarket/onchain/deposit-wallet/deposit-wallet-address.js';
import {
  prepareDepositWalletApprovals,
  prepareWrapOnDepositWallet,
  submitDepositWalletApprovals,
  submitWrapOnDepositWallet,
  upgradeToDepositWallet,
} from '../domains/venues/polymarket/onchain/deposit-wallet/deposit-wallet-flows.js';
import { redeemPosition } from '../domains/venues/polymarket/onchain/redeem-position.js';
import { finishRelayedRedemptions } from '../domains/venues/polymarket/onchain/relayed-redemption.js';
import { proxyPolygonRpc } from '../domains/venues/polymarket/onchain/rpc-proxy.js';
import { managedApprovalRows } from '../domains/venues/polymarket/onchain/managed-approval-rows.js';

export type { ManagedWalletApprovalRow } from '../domains/venues/polymarket/onchain/managed-approval-rows.js';

/**
 * What the service does on the chain where a venue's positions are tokens in the owner's wallet:
 * relay allow-listed transactions its clients sign, redeem resolved positions (asked for, and
 * automatically), read the allowances trading needs, proxy the chain's RPC, and run the deposit
 * wallets' owner-signed batches through Polymarket's relayer, and list the managed wallets' trading
 * approvals for the operator console. Polymarket's, on
 * Polygon, is the only one; the API's wallet endpoints and the broadcast and redemption workers
 * reach it here, never through the venue's folder. Not part of `Deps`: its type would pull the
 * venue's code into every module that names `Deps`.
 */
export const onchain = {
  broadcastTx,
  listBroadcasts,
  sendBroadcast,
  followReceipt,
  redeem,
  reportRedemption,
  prepareDepositWalletRedeem,
  submitDepositWalletRedeem,
  upgradeToDepositWallet,
  depositWalletAddress,
  prepareDepositWalletApprovals,
  submitDepositWalletApprovals,
  prepareWrapOnDepositWallet,
  submitWrapOnDepositWallet,
  redeemPosition,
  enqueueAutoRedemptions,
  finishRelayedRedemptions,
  readAllowances,
  proxyPolygonRpc,
  managedApprovalRows,
};
