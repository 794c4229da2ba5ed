import { solanaWallets } from '../../shared/composition/solana-wallets.js';
import type { HandlersFor } from '../endpoints/endpoint.js';
import type { kalshiEndpoints } from '../endpoints/kalshi.endpoints.js';
import { actorOf, ownerOf } from './limits.handlers.js';

/**
 * The spec gives Kalshi endpoints of its own (its orders are signed by the agent's wallet); the
 * route table names the venue, and reaches its trading through the client-signed seam of
 * `deps.trading`, like any venue's.
 */
export const kalshiHandlers: HandlersFor<typeof kalshiEndpoints> = {
  kalshiQuote: async ({ deps, agent, body }) => deps.trading.clientSigned('kalshi').quote(deps, agent, body),
  kalshiSubmit: async ({ deps, agent, body }) =>
    deps.trading.clientSigned('kalshi').submitSigned(deps, agent, body),
  solanaWalletChallenge: async (input) =>
    solanaWallets.challenge(input.deps, await ownerOf(input), input.query.address),
  solanaWalletVerify: async (input) =>
    solanaWallets.verify(input.deps, await ownerOf(input), actorOf(input), input.body),
  proofStatus: async ({ deps, query }) =>
    deps.trading.clientSigned('kalshi').signerStatus(deps, query.wallet),
};
