import { agentOwner } from '../../shared/domains/limits/settings-owner.js';
import { broadcastTx, listBroadcasts } from '../../shared/domains/onchain/broadcast-tx.js';
import { claimUrlFor } from '../../shared/domains/trading/context.js';
import type { AgentRecord } from '../../shared/domains/agents/agent.model.js';
import type { WalletAccount } from '../../shared/domains/wallets/wallet-account.js';
import type { Deps } from '../../shared/composition/deps.js';
import { publicBaseUrl } from '../../shared/infra/config/env.js';
import type { HandlersFor } from '../endpoints/endpoint.js';
import type { broadcastEndpoints } from '../endpoints/broadcast.endpoints.js';

/** The agent acts for its human's wallet; an unclaimed agent has none (refused with its claim URL). */
async function accountOf(deps: Deps, agent: AgentRecord): Promise<WalletAccount> {
  return {
    owner: await agentOwner(deps, agent),
    claimUrl: agent.claimedBy ? null : claimUrlFor(publicBaseUrl(deps.env))(agent.claimCode),
    suspended: agent.status === 'suspended',
  };
}

export const broadcastHandlers: HandlersFor<typeof broadcastEndpoints> = {
  broadcastTx: async ({ deps, agent, body }) =>
    broadcastTx(deps, await accountOf(deps, agent), agent._id, body.signed_tx),
  listBroadcasts: async ({ deps, agent, query }) =>
    listBroadcasts(deps, await accountOf(deps, agent), query.limit),
};
