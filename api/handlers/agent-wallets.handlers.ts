import { actingUserOf, type AgentRecord } from '../../shared/domains/agents/agent.model.js';
import { ownedAgent } from '../../shared/domains/agents/manage-agents.js';
import type { UserRecord } from '../../shared/domains/users/user.model.js';
import {
  agentWalletPnl,
  listAgentWallets,
  registerAgentWallet,
  type AgentWalletTarget,
} from '../../shared/domains/wallets/agent-wallets.js';
import { walletUserOf } from '../../shared/domains/wallets/wallet-account.js';
import type { Deps } from '../../shared/composition/deps.js';
import { clobCredentials } from '../../shared/composition/clob-credentials.js';
import { AppError, invalidField, notFound } from '../../shared/infra/errors.js';
import type { agentWalletEndpoints } from '../endpoints/agent-wallets.endpoints.js';
import type { HandlersFor } from '../endpoints/endpoint.js';
import { walletAccountOf } from './wallet-caller.js';

interface Caller {
  deps: Deps;
  agent?: AgentRecord;
  user?: UserRecord;
}

/**
 * The agent a registration is for: an agent key registers for itself (claimed, not released); a
 * user token for `agent_id`, one of the user's agents. The tier is the human's.
 */
async function targetOf(caller: Caller, agentId: string | undefined): Promise<AgentWalletTarget> {
  const account = await walletAccountOf(caller);
  walletUserOf(account);
  const { agent, user, deps } = caller;
  if (agent) {
    if (agentId && agentId !== agent._id)
      throw new AppError(
        403,
        'agent_mismatch',
        'An agent key registers a wallet for the calling agent only',
        `Omit agent_id (or send ${agent._id}); your human registers wallets for their other agents with their user token.`,
      );
    return { agent, tier: account.owner.tier };
  }
  if (!agentId)
    throw invalidField(
      'agent_id',
      'Field required with a user token',
      agentId,
      'Send agent_id: one of your agents (GET /api/sdk/agents lists them).',
    );
  const owned = await ownedAgent(deps.models, user!, agentId);
  walletUserOf({ ...account, suspended: owned.status === 'suspended' });
  return { agent: owned, tier: account.owner.tier };
}

/** An agent whose P&L the caller may read: the user's own, or (an agent key) itself or a sibling. */
async function readableAgent({ deps, agent, user }: Caller, agentId: string) {
  if (agent?._id === agentId) return agent;
  const userId = user?._id ?? (agent && actingUserOf(agent));
  if (!userId) throw notFound('Agent', 'An unclaimed agent reads its own P&L only: use its own agent_id.');
  return ownedAgent(deps.models, { _id: userId }, agentId);
}

export const agentWalletHandlers: HandlersFor<typeof agentWalletEndpoints> = {
  registerAgentWallet: async (input) =>
    registerAgentWallet(input.deps, await targetOf(input, input.body.agent_id), input.body),
  listAgentWallets: async (input) => {
    const { owner } = await walletAccountOf(input);
    return listAgentWallets(input.deps.models, owner.kind === 'user' ? owner.id : null);
  },
  agentWalletPnl: async (input) =>
    agentWalletPnl(input.deps.models, await readableAgent(input, input.params.agent_id), (venue) =>
      input.deps.trading.all().some((v) => v.venue === venue && v.capabilities.money === 'paper'),
    ),
  updateAgentWalletCreds: async (input) =>
    clobCredentials.updateAgentWallet(
      input.deps,
      walletUserOf(await walletAccountOf(input)),
      input.body,
      input.agent?._id,
    ),
};
