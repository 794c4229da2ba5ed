import type { AgentRecord } from '../../shared/domains/agents/agent.model.js';
import { cooldownsView } from '../../shared/domains/limits/cooldowns-view.js';
import { agentOwner, userOwner, type SettingsOwner } from '../../shared/domains/users/settings-owner.js';
import { walletCash, walletCashSettings } from '../../shared/domains/trading/wallet-cash.js';
import {
  settingsView,
  updateSettings,
  type SettingsActor,
} from '../../shared/domains/limits/trading-settings.js';
import { claimUrlFor } from '../../shared/domains/trading/context.js';
import { ownedAgent } from '../../shared/domains/agents/manage-agents.js';
import type { UserRecord } from '../../shared/domains/users/user.model.js';
import { publicBaseUrl } from '../../shared/infra/config/env.js';
import type { Deps } from '../../shared/composition/deps.js';
import { notFound } from '../../shared/infra/errors.js';
import { checkedBridgeUrl } from '../../shared/domains/webhooks/webhooks.js';
import type { HandlersFor } from '../endpoints/endpoint.js';
import type { limitsEndpoints } from '../endpoints/limits.endpoints.js';

interface Caller {
  deps: Deps;
  agent?: AgentRecord;
  user?: UserRecord;
}

/** An agent key acts on the agent's owner; a user token on that user (auth guarantees one of the two). */
export const ownerOf = ({ deps, agent, user }: Caller) =>
  agent ? agentOwner(deps, agent) : userOwner(user!);

export const actorOf = ({ deps, agent }: Caller): SettingsActor =>
  agent
    ? {
        kind: 'agent',
        suspended: agent.status === 'suspended',
        claimUrl: agent.claimedBy ? null : claimUrlFor(publicBaseUrl(deps.env))(agent.claimCode),
      }
    : { kind: 'user' };

/** Settings with the owner's venue wallets' cash and approvals laid over their defaults. */
const withWallets = async <V extends object>(deps: Deps, owner: SettingsOwner, view: V) => ({
  ...view,
  ...walletCashSettings(deps.trading, await walletCash(deps, owner)),
});

const read = async (input: Caller) => {
  const owner = await ownerOf(input);
  return withWallets(input.deps, owner, await settingsView(input.deps, owner));
};

const update: HandlersFor<typeof limitsEndpoints>['patchSdkSettings'] = async (input) => {
  const owner = await ownerOf(input);
  return withWallets(
    input.deps,
    owner,
    await updateSettings(input.deps, owner, await checkedBridgeUrl(input.deps, input.body), actorOf(input)),
  );
};

export const limitsHandlers: HandlersFor<typeof limitsEndpoints> = {
  getSdkSettings: read,
  patchSdkSettings: update,
  postSdkSettings: update,
  getUserSettings: read,
  patchUserSettings: update,
  agentCooldowns: async ({ deps, agent, user, params }) => {
    if (agent && agent._id !== params.agent_id)
      throw notFound(
        'Agent',
        'An API key reads its own agent’s cooldowns: use your agent_id (GET /api/sdk/agents/me).',
      );
    return cooldownsView(deps, agent ?? (await ownedAgent(deps.models, user!, params.agent_id)));
  },
};
