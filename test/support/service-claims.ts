import jwt from 'jsonwebtoken';
import { jsonCall } from './client-venv-service.js';

/** A claimed agent of a running service: its key, its human's token and the human's managed wallet. */
export interface ClaimedAgent {
  apiKey: string;
  agentId: string;
  userToken: string;
  walletAddress: string;
}

/**
 * An agent registered on a service started as its own process (`useClientVenvService`, where the
 * in-process helpers of users.ts cannot sign for it), claimed by a new human with a token signed
 * with the service's JWT_SECRET (as `npm run token` signs one), real trading switched on: the claim
 * gave the human a managed Polymarket wallet, which the service signs for (and approves itself
 * before the first order). Funding it is the caller's: the emulator's `/wallets/<address>/fund`.
 */
export async function claimedAgentOnService(
  base: string,
  jwtSecret: string,
  name: string,
): Promise<ClaimedAgent> {
  const agent = await jsonCall<{ api_key: string; agent_id: string; claim_code: string }>(
    `${base}/api/sdk/agents/register`,
    'POST',
    { name },
  );
  const userToken = jwt.sign({ sub: `user-${agent.agent_id}` }, jwtSecret, {
    algorithm: 'HS256',
    expiresIn: 3600,
  });
  await jsonCall(`${base}/api/sdk/agents/claim`, 'POST', { claim_code: agent.claim_code }, userToken);
  const settings = await jsonCall<{ wallet_address: string | null }>(
    `${base}/api/sdk/settings`,
    'PATCH',
    { sdk_real_trading_enabled: true },
    userToken,
  );
  if (!settings.wallet_address)
    throw new Error(`the claim gave no managed wallet: ${JSON.stringify(settings)}`);
  return {
    apiKey: agent.api_key,
    agentId: agent.agent_id,
    userToken,
    walletAddress: settings.wallet_address,
  };
}
