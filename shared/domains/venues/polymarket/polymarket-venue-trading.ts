import type { Models } from '../../models.js';
import type { VenueTrading } from '../../trading/venue-trading.js';
import type { ClobCredentialModels } from './clob-credential.model.js';
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
 * What Polymarket's trading holds of the process besides what the seam hands it: the chain managed
 * wallets' approvals are set on and their records, and the CLOB credentials' model (the venue's
 * own models, which the composition root opens beside the domains').
 */
export type PolymarketTradingOwn = ManagedWalletChain & ClobCredentialModels;

/**
 * Real trading on Polymarket's CLOB: orders signed by the owner's wallet (or the service's managed
 * one, its approvals set on `own`'s chain before its first order), posted under the wallet's L2
 * credentials; limit orders rest on the book until matched or cancelled, and the
 * `sync-venue-orders` job follows them. A match settles on chain after it is made: the trade is
 * `unconfirmed` until its CLOB trades are CONFIRMED, and rolled back if they FAIL.
 */
export function polymarketVenueTradingOn(own: PolymarketTradingOwn): VenueTrading {
  // The seam's context or trade, with the credentials' model beside the domains' models.
  const withCredentials = <C extends { deps: { models: Models } }>(c: C) => ({
    ...c,
    deps: { ...c.deps, models: { ...c.deps.models, ClobCredential: own.ClobCredential } },
  });
  return {
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
    submit: (trade) => submitPolymarketTrade(withCredentials(trade)),
    execute: (ctx, trade, market) => executePolymarketOrder(withCredentials(ctx), trade, market, own),
    prepareOrder: preparePolymarketOrder,
    orderState: async (ctx, trade) => {
      const vo = trade.venueOrder;
      if (!vo?.orderId) return null;
      const creds = await credentialsOf(withCredentials(ctx), trade);
      return creds ? orderStateOf(ctx, creds, vo.orderId, vo.price) : null;
    },
    settlement: (ctx, trade) => polymarketSettlement(withCredentials(ctx), trade),
    cancel: async (ctx, trade, orderId) => {
      const creds = await credentialsOf(withCredentials(ctx), trade);
      if (!creds) return { canceled: false, reason: 'no CLOB credentials for the wallet of this account' };
      const answer = await polymarketTrading(ctx.deps).cancel(creds, [orderId]);
      return answer.canceled.includes(orderId)
        ? { canceled: true }
        : { canceled: false, reason: answer.not_canceled?.[orderId] ?? 'not canceled' };
    },
  };
}
