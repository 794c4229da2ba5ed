import { quoteKalshiTrade, submitKalshiTrade } from '../../shared/domains/venues/kalshi/kalshi-trade.js';
import {
  proofStatus,
  solanaWalletChallenge,
  verifySolanaWallet,
} from '../../shared/domains/wallets/solana-wallet.js';
import type { HandlersFor } from '../endpoints/endpoint.js';
import type { kalshiEndpoints } from '../endpoints/kalshi.endpoints.js';
import { actorOf, ownerOf } from './limits.handlers.js';

export const kalshiHandlers: HandlersFor<typeof kalshiEndpoints> = {
  kalshiQuote: async ({ deps, agent, body }) => quoteKalshiTrade(deps, agent, body),
  kalshiSubmit: async ({ deps, agent, body }) => submitKalshiTrade(deps, agent, body),
  solanaWalletChallenge: async (input) =>
    solanaWalletChallenge(input.deps, await ownerOf(input), input.query.address),
  solanaWalletVerify: async (input) =>
    verifySolanaWallet(input.deps, await ownerOf(input), actorOf(input), input.body),
  proofStatus: async ({ deps, query }) => proofStatus(deps, query.wallet),
};
