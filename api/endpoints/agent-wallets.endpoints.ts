import {
  AgentWalletListResponseSchema,
  AgentWalletPnlParamsSchema,
  AgentWalletPnlResponseSchema,
  AgentWalletRegisterRequestSchema,
  AgentWalletRegisterResponseSchema,
  AgentWalletUpdateCredsRequestSchema,
  AgentWalletUpdateCredsResponseSchema,
} from '../../shared/domains/wallets/agent-wallet.schemas.js';
import { endpoint } from './endpoint.js';

export const agentWalletEndpoints = {
  registerAgentWallet: endpoint({
    method: 'post',
    path: '/api/sdk/agent-wallet/register',
    auth: 'agent-or-user',
    status: 201,
    tag: 'Wallet',
    summary: 'Give an agent its own managed Polymarket wallet (Elite tier only); idempotent',
    description:
      'With an agent key, for the calling agent (claimed); with a user token, for `agent_id` (one of your agents). The service creates a key and holds it sealed at rest; a second call answers the same wallet (`created: false`). Other tiers get 403 `elite_required` with a `fix`; client-held (OWS) registrations — `wallet_source: "ows"`, `ows_wallet_name` or `wallet_address` — are retired: 410 `ows_registration_closed`.',
    body: AgentWalletRegisterRequestSchema,
    response: AgentWalletRegisterResponseSchema,
    errors: [403, 404, 410],
  }),
  listAgentWallets: endpoint({
    method: 'get',
    path: '/api/sdk/agent-wallets',
    auth: 'agent-or-user',
    tag: 'Wallet',
    summary: 'The agent wallets of your agents (an agent key: of its human’s agents)',
    response: AgentWalletListResponseSchema,
  }),
  agentWalletPnl: endpoint({
    method: 'get',
    path: '/api/sdk/agent-wallet/{agent_id}/pnl',
    auth: 'agent-or-user',
    tag: 'Wallet',
    summary: 'An agent’s P&L from its real-venue trades (all tiers)',
    description:
      'From the agent’s non-sim positions: realized from closes and settlements, unrealized at the market’s price; `wallet_address` is null when the agent has no wallet of its own. The agent must be yours (with an agent key: itself or another agent of its human).',
    params: AgentWalletPnlParamsSchema,
    response: AgentWalletPnlResponseSchema,
    errors: [404],
  }),
  updateAgentWalletCreds: endpoint({
    method: 'post',
    path: '/api/sdk/agent-wallet/update-creds',
    auth: 'agent-or-user',
    tag: 'Wallet',
    summary: 'Store an agent wallet’s CLOB L2 credentials (encrypted, never returned) and approvals flag',
    description:
      'The wallet must be one of your agents’ (with an agent key: the calling agent’s own), else 404. Without stored credentials the service derives them with the wallet’s key on the first trade.',
    body: AgentWalletUpdateCredsRequestSchema,
    response: AgentWalletUpdateCredsResponseSchema,
    errors: [403, 404],
  }),
};
