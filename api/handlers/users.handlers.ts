import {
  claimAgent,
  listUserAgents,
  reactivateAgent,
  releaseAgent,
  updateOwnedAgentSettings,
} from '../../shared/domains/agents/manage-agents.js';
import { ensureWalletOnClaim } from '../../shared/domains/wallets/managed-wallet.js';
import { operatorActions } from '../../shared/domains/operator/operator-actions.js';
import { API_ACTOR } from '../../shared/domains/operator/record-action.js';
import type { HandlersFor } from '../endpoints/endpoint.js';
import type { userEndpoints } from '../endpoints/users.endpoints.js';

export const userHandlers: HandlersFor<typeof userEndpoints> = {
  claimAgent: async ({ deps, user, body }) => {
    const claimed = await claimAgent(
      deps.models,
      deps.invalidation,
      user,
      body.claim_code,
      deps.env.TIER_AGENT_LIMITS,
      deps.clock(),
      deps.env.CLAIM_CODE_TTL_HOURS,
    );
    // The human gets a managed wallet to trade with when they have no wallet yet.
    await ensureWalletOnClaim(deps, user._id);
    return claimed;
  },
  listUserAgents: async ({ deps, user }) => listUserAgents(deps.models, user, deps.env.TIER_AGENT_LIMITS),
  releaseAgent: async ({ deps, user, params }) =>
    releaseAgent(deps.models, deps.invalidation, user, params.agent_id),
  reactivateAgent: async ({ deps, user, params }) =>
    reactivateAgent(deps.models, deps.invalidation, user, params.agent_id, deps.env.TIER_AGENT_LIMITS),
  setUserTier: async ({ deps, params, body }) =>
    operatorActions.setUserTier(deps, API_ACTOR, params.user_id, body.tier),
  updateUserAgentSettings: async ({ deps, user, params, body }) =>
    updateOwnedAgentSettings(deps.models, deps.invalidation, user, params.agent_id, body, deps.clock()),
};
