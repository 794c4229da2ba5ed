import { getAddress } from 'ethers';
import { notFound } from '../../../infra/errors.js';
import {
  agentWalletSigner,
  agentWalletView,
  type AgentWalletDeps,
  type AgentWalletsDeps,
} from '../../wallets/agent-wallets.js';
import type { AgentWalletUpdateCredsRequest } from '../../wallets/agent-wallet.schemas.js';
import {
  deriveClobCredentialsWith,
  openClobCredentials,
  sealClobCredentials,
  type ClobCredentials,
} from './clob-credentials.js';

/** The sealed credentials open only on the agent wallet (agent and address) they were sealed for. */
const agentCredentialsContext = (agentId: string, address: string) =>
  `agent-wallet-clob-credentials:${agentId}:${address}`;

/**
 * `POST /api/sdk/agent-wallet/update-creds`: the wallet's CLOB L2 credentials (sealed) and whether
 * its approvals are set. The wallet must be one of the user's agents' (with an agent key, `agentId`:
 * that agent's own); anything else is a 404, whoever's it is.
 */
export async function updateAgentWalletCreds(
  deps: AgentWalletDeps,
  userId: string,
  body: AgentWalletUpdateCredsRequest,
  agentId?: string,
) {
  const address = getAddress(body.wallet_address.toLowerCase());
  const wallet = await deps.models.AgentWallet.findOne({ address }).lean();
  const agent =
    wallet && (!agentId || wallet._id === agentId)
      ? await deps.models.Agent.findOne({ _id: wallet._id, claimedBy: userId }, { name: 1 }).lean()
      : null;
  if (!wallet || !agent)
    throw notFound(
      'Agent wallet',
      'Send the wallet_address of one of your agent wallets (GET /api/sdk/agent-wallets lists them), or register one: POST /api/sdk/agent-wallet/register.',
    );
  const creds = body.clob_api_creds;
  const set = {
    ...(creds
      ? {
          clobCredentials: sealClobCredentials(
            deps.env,
            { apiKey: creds.api_key, secret: creds.api_secret, passphrase: creds.api_passphrase },
            agentCredentialsContext(wallet._id, address),
          ),
          clobCredentialsSource: 'client' as const,
        }
      : {}),
    ...(body.approvals_set === undefined ? {} : { approvalsSet: body.approvals_set }),
  };
  const updated = await deps.models.AgentWallet.findOneAndUpdate(
    { _id: wallet._id },
    { $set: set },
    { returnDocument: 'after' },
  ).lean();
  return {
    success: true as const,
    ...agentWalletView(updated!, agent.name),
    message: creds
      ? `CLOB credentials stored for ${address} (encrypted at rest; they are never shown again).`
      : `Agent wallet ${address} updated.`,
  };
}

/**
 * For the trading engine: the agent wallet's L2 credentials, stored ones or else derived at the CLOB
 * with the wallet's key (and stored sealed); null when the agent has no wallet.
 */
export async function agentWalletCredentials(
  deps: AgentWalletDeps & Pick<AgentWalletsDeps, 'log' | 'metrics' | 'clock'>,
  agentId: string,
): Promise<ClobCredentials | null> {
  const wallet = await deps.models.AgentWallet.findById(agentId, { address: 1, clobCredentials: 1 }).lean();
  if (!wallet) return null;
  const context = agentCredentialsContext(agentId, wallet.address);
  if (wallet.clobCredentials)
    return openClobCredentials(deps.env, wallet.clobCredentials, context, wallet.address);
  const signer = await agentWalletSigner(deps, agentId);
  const creds = await deriveClobCredentialsWith(deps, signer!);
  await deps.models.AgentWallet.updateOne(
    { _id: agentId, clobCredentials: null },
    {
      $set: {
        clobCredentials: sealClobCredentials(deps.env, creds, context),
        clobCredentialsSource: 'managed',
      },
    },
  );
  return creds;
}
