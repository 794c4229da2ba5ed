import type { AgentRecord } from '../../shared/domains/agents/agent.model.js';
import { agentOwner, userOwner } from '../../shared/domains/users/settings-owner.js';
import { claimUrlFor } from '../../shared/domains/trading/context.js';
import type { UserRecord } from '../../shared/domains/users/user.model.js';
import type { WalletAccount } from '../../shared/domains/wallets/wallet-account.js';
import type { Deps } from '../../shared/composition/deps.js';
import { publicBaseUrl } from '../../shared/infra/config/env.js';

interface Caller {
  deps: Deps;
  agent?: AgentRecord;
  user?: UserRecord;
}

/**
 * Whose wallet a call acts on: an agent key on its human's (an unclaimed agent has none, and is
 * refused with its claim URL), a user token on the user's own. Auth guarantees one of the two.
 */
export async function walletAccountOf({ deps, agent, user }: Caller): Promise<WalletAccount> {
  if (!agent) return { owner: userOwner(user!), claimUrl: null, suspended: false };
  return {
    owner: await agentOwner(deps, agent),
    claimUrl: agent.claimedBy ? null : claimUrlFor(publicBaseUrl(deps.env))(agent.claimCode),
    suspended: agent.status === 'suspended',
  };
}
