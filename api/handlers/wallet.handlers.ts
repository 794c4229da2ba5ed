import type { AgentRecord } from '../../shared/domains/agents/agent.model.js';
import { agentOwner, userOwner } from '../../shared/domains/limits/settings-owner.js';
import { claimUrlFor } from '../../shared/domains/trading/context.js';
import type { UserRecord } from '../../shared/domains/users/user.model.js';
import {
  checkClobCredentials,
  deriveClobCredentialsViaProxy,
  storeClobCredentials,
} from '../../shared/domains/wallets/clob-credentials.js';
import { requestManagedWallet } from '../../shared/domains/wallets/managed-wallet.js';
import { walletUserOf, type WalletAccount } from '../../shared/domains/wallets/wallet-account.js';
import { linkWallet, unlinkWallet, walletLinkChallenge } from '../../shared/domains/wallets/wallet-link.js';
import type { Deps } from '../../shared/composition/deps.js';
import { publicBaseUrl } from '../../shared/infra/config/env.js';
import type { HandlersFor } from '../endpoints/endpoint.js';
import type { walletEndpoints } from '../endpoints/wallet.endpoints.js';

interface Caller {
  deps: Deps;
  agent?: AgentRecord;
  user?: UserRecord;
}

/** An agent key acts on its owner's wallet; a user token on the user's (auth guarantees one of the two). */
async function accountOf({ deps, agent, user }: Caller): Promise<WalletAccount> {
  if (!agent) return { owner: userOwner(user!), claimUrl: null, suspended: false };
  return {
    owner: await agentOwner(deps, agent),
    claimUrl: agent.claimedBy ? null : claimUrlFor(publicBaseUrl(deps.env))(agent.claimCode),
    suspended: agent.status === 'suspended',
  };
}

export const walletHandlers: HandlersFor<typeof walletEndpoints> = {
  walletLinkChallenge: async (input) =>
    walletLinkChallenge(input.deps, await accountOf(input), input.query.address),
  linkWallet: async (input) => linkWallet(input.deps, await accountOf(input), input.body),
  unlinkWallet: async (input) => unlinkWallet(input.deps, await accountOf(input)),
  createManagedWallet: async (input) =>
    requestManagedWallet(input.deps, walletUserOf(await accountOf(input))),
  checkClobCredentials: async (input) => checkClobCredentials(input.deps, await accountOf(input)),
  storeClobCredentials: async (input) => storeClobCredentials(input.deps, await accountOf(input), input.body),
  deriveClobCredentialsViaProxy: async (input) =>
    deriveClobCredentialsViaProxy(input.deps, await accountOf(input), input.body),
};
