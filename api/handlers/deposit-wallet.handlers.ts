import { AppError, notFound } from '../../shared/infra/errors.js';
import { onchain } from '../../shared/composition/onchain.js';
import type { AgentRecord } from '../../shared/domains/agents/agent.model.js';
import type { UserRecord } from '../../shared/domains/users/user.model.js';
import type { Deps } from '../../shared/composition/deps.js';
import type { HandlersFor } from '../endpoints/endpoint.js';
import type { depositWalletEndpoints } from '../endpoints/deposit-wallet.endpoints.js';
import { walletAccountOf } from './wallet-caller.js';

/**
 * The account whose deposit wallet agent `agentId` trades with, for its per-agent routes: the
 * caller must be the agent itself or its human. An agent without a wallet of its own trades with
 * its human's; an Elite agent wallet is managed, with no external owner to sign batches.
 */
async function agentWalletAccount(
  input: { deps: Deps; agent?: AgentRecord; user?: UserRecord },
  agentId: string,
) {
  const { deps, agent, user } = input;
  const target = await deps.models.Agent.findById(agentId, { claimedBy: 1 }).lean();
  const mayAct = agent ? agent._id === agentId : !!target && target.claimedBy === user?._id;
  if (!target || !mayAct)
    throw notFound(`Agent ${agentId}`, 'Use the id of one of your agents (GET /api/sdk/agents).');
  if (await deps.models.AgentWallet.exists({ _id: agentId }))
    throw new AppError(
      409,
      'agent_wallet_managed',
      `Agent ${agentId} trades with its own managed wallet: the service holds its key and sets its approvals`,
      'Nothing to sign: managed agent wallets need no client approvals. To use a deposit wallet, trade from your own linked wallet (POST /api/user/wallet/external/dw-approvals/prepare).',
    );
  return walletAccountOf(input);
}

export const depositWalletHandlers: HandlersFor<typeof depositWalletEndpoints> = {
  upgradeToDepositWallet: async (input) =>
    onchain.upgradeToDepositWallet(input.deps, await walletAccountOf(input)),
  prepareDepositWalletApprovals: async (input) =>
    onchain.prepareDepositWalletApprovals(input.deps, await walletAccountOf(input), {
      combo: input.body?.combo ?? false,
    }),
  submitDepositWalletApprovals: async (input) =>
    onchain.submitDepositWalletApprovals(input.deps, await walletAccountOf(input), input.body),
  prepareAgentDepositWalletApprovals: async (input) =>
    onchain.prepareDepositWalletApprovals(
      input.deps,
      await agentWalletAccount(input, input.params.agent_id),
      {
        combo: input.body?.combo ?? false,
      },
    ),
  submitAgentDepositWalletApprovals: async (input) =>
    onchain.submitDepositWalletApprovals(
      input.deps,
      await agentWalletAccount(input, input.params.agent_id),
      input.body,
    ),
  prepareWrapOnDepositWallet: async (input) =>
    onchain.prepareWrapOnDepositWallet(input.deps, await walletAccountOf(input)),
  submitWrapOnDepositWallet: async (input) =>
    onchain.submitWrapOnDepositWallet(input.deps, await walletAccountOf(input), input.body),
};
