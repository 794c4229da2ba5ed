import type { AgentRecord } from '../../shared/domains/agents/agent.model.js';
import { cooldownsView } from '../../shared/domains/limits/cooldowns-view.js';
import { agentOwner, userOwner } from '../../shared/domains/users/settings-owner.js';
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

const update: HandlersFor<typeof limitsEndpoints>['patchSdkSettings'] = async (input) =>
  updateSettings(
    input.deps,
    await ownerOf(input),
    await checkedBridgeUrl(input.deps, input.body),
    actorOf(input),
  );

export const limitsHandlers: HandlersFor<typeof limitsEndpoints> = {
  getSdkSettings: async (input) => settingsView(input.deps, await ownerOf(input)),
  patchSdkSettings: update,
  postSdkSettings: update,
  getUserSettings: async (input) => settingsView(input.deps, await ownerOf(input)),
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
