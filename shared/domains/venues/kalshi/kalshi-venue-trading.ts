import type { VenueTrading } from '../../trading/venue-trading.js';
import type { KalshiQuoteModel } from './kalshi-quote.model.js';
import type { SolanaWalletProofModel } from './solana-wallet-proof.model.js';
import { kalshiWalletCash } from './wallet-cash.js';
import { withProofs } from './solana-wallet-setting.js';
import { executeKalshiOrder, followKalshiOrder } from './execute-kalshi-order.js';
import { kalshiSignerStatus, quoteKalshiTrade, submitKalshiTrade, tradeKalshiVenue } from './kalshi-trade.js';

/**
 * Real trading on Kalshi through DFlow: the agent's Solana wallet signs a quoted transaction (quote
 * and submit endpoints; `/api/sdk/trade` prices dry runs only). The order is asynchronous: it
 * fills or expires by itself within seconds (the `follow-kalshi-order` job watches it), and cannot
 * be cancelled. `quotes`: the quotes kept between the quote and the submit; `proofs`: the wallets
 * whose owners proved they hold them (the venue's own models, which the composition root opens
 * beside the domains').
 */
export const kalshiVenueTrading = (
  quotes: KalshiQuoteModel,
  proofs: SolanaWalletProofModel,
): VenueTrading => ({
  venue: 'kalshi',
  capabilities: {
    money: 'real',
    restingOrders: true,
    cancellable: false,
    orderTypes: ['FAK'],
    maxBuyMicro: null,
    fees: 'market',
    serviceSignsOrders: false,
  },
  warnings: () => [],
  submit: tradeKalshiVenue,
  execute: executeKalshiOrder,
  followOrder: followKalshiOrder,
  quote: (deps, agent, req) => quoteKalshiTrade(withProofs(deps, proofs), quotes, agent, req),
  submitSigned: (deps, agent, req) => submitKalshiTrade(withProofs(deps, proofs), quotes, agent, req),
  signerStatus: kalshiSignerStatus,
  walletCash: kalshiWalletCash,
});
