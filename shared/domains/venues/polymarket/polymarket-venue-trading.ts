import type { VenueTrading } from '../../trading/venue-trading.js';
import {
  credentialsOf,
  executePolymarketOrder,
  orderStateOf,
  type ManagedWalletChain,
} from './execute-polymarket-order.js';
import { submitPolymarketTrade } from './polymarket-trade.js';
import { polymarketSettlement } from './polymarket-settlement.js';
import { polymarketTrading } from './polymarket-trading.js';
import { preparePolymarketOrder } from './prepare-order.js';

/**
 * Real trading on Polymarket's CLOB: orders signed by the owner's wallet (or the service's managed
 * one), posted under the wallet's L2 credentials; limit orders rest on the book until matched or
 * cancelled, and the `sync-venue-orders` job follows them. A match settles on chain after it is
 * made: the trade is `unconfirmed` until its CLOB trades are CONFIRMED, and rolled back if they FAIL.
 */
export const polymarketVenueTrading: VenueTrading = {
  venue: 'polymarket',
  capabilities: {
    money: 'real',
    restingOrders: true,
    cancellable: true,
    orderTypes: ['GTC', 'GTD', 'FOK', 'FAK'],
    maxBuyMicro: null,
    fees: 'market',
    serviceSignsOrders: true,
  },
  warnings: () => [],
  submit: submitPolymarketTrade,
  execute: executePolymarketOrder,
  prepareOrder: preparePolymarketOrder,
  orderState: async (ctx, trade) => {
    const vo = trade.venueOrder;
    if (!vo?.orderId) return null;
    const creds = await credentialsOf(ctx, trade);
    return creds ? orderStateOf(ctx, creds, vo.orderId, vo.price) : null;
  },
  settlement: polymarketSettlement,
  cancel: async (ctx, trade, orderId) => {
    const creds = await credentialsOf(ctx, trade);
    if (!creds) return { canceled: false, reason: 'no CLOB credentials for the wallet of this account' };
    const answer = await polymarketTrading(ctx.deps).cancel(creds, [orderId]);
    return answer.canceled.includes(orderId)
      ? { canceled: true }
      : { canceled: false, reason: answer.not_canceled?.[orderId] ?? 'not canceled' };
  },
};

/**
 * The same, with managed wallets' approvals set on `chain` before their first order (without it a
 * managed wallet must have been approved some other way).
 */
export const polymarketVenueTradingOn = (chain: ManagedWalletChain): VenueTrading => ({
  ...polymarketVenueTrading,
  execute: (ctx, trade, market) => executePolymarketOrder(ctx, trade, market, chain),
});
