import { z } from 'zod';
import {
  AgentSettingsResponseSchema,
  AgentSettingsUpdateSchema,
} from '../../shared/domains/agents/agent.schemas.js';
import { CLAIM_CODE_PATTERN } from '../../shared/domains/agents/claim-code.js';
import { TIERS } from '../../shared/domains/users/user.model.js';
import { endpoint } from './endpoint.js';

export const UserAgent = z
  .looseObject({
    agent_id: z.string(),
    name: z.string(),
    status: z.string(),
    balance: z.number(),
    total_pnl: z.number(),
    trades_count: z.number(),
  })
  .meta({ id: 'UserAgent' });
const AgentIdParams = z.object({ agent_id: z.string().min(1).max(100) });
const AgentAction = z
  .looseObject({ success: z.literal(true), agent_id: z.string(), status: z.string() })
  .meta({ id: 'AgentAction' });

export const userEndpoints = {
  claimAgent: endpoint({
    method: 'post',
    path: '/api/sdk/agents/claim',
    auth: 'user',
    tag: 'Users',
    summary: 'Claim an agent with its claim code: links it to you and enables real trading',
    description:
      'A code works once, and only within CLAIM_CODE_TTL_HOURS of being issued (410 `claim_code_expired`: ask the agent to rotate it). Claiming beyond your tier limit answers 409 `tier_limit_reached`. 10 per minute per IP.',
    body: z
      .object({
        claim_code: z
          .string()
          .trim()
          .regex(CLAIM_CODE_PATTERN, 'a claim code looks like reef-X4B2Q7-M9KD3T-7HWQ2P'),
      })
      .meta({ id: 'ClaimRequest' }),
    response: AgentAction.extend({ claimed: z.literal(true), claimed_by: z.string() }).meta({
      id: 'ClaimResponse',
    }),
    errors: [404, 409, 410, 429],
    rateLimit: 'claim',
  }),
  listUserAgents: endpoint({
    method: 'get',
    path: '/api/sdk/agents',
    auth: 'user',
    tag: 'Users',
    summary: 'Your agents with balance, P&L, trades and status',
    response: z
      .object({
        agents: z.array(UserAgent),
        total: z.number(),
        tier: z.enum(TIERS),
        agent_limit: z.number(),
        active_agents: z.number(),
      })
      .meta({ id: 'UserAgentList' }),
  }),
  releaseAgent: endpoint({
    method: 'post',
    path: '/api/sdk/agents/{agent_id}/release',
    auth: 'user',
    tag: 'Users',
    summary: 'Release (suspend) one of your agents: trading stops, history stays, the slot frees',
    params: AgentIdParams,
    response: AgentAction,
    errors: [404],
  }),
  reactivateAgent: endpoint({
    method: 'post',
    path: '/api/sdk/agents/{agent_id}/reactivate',
    auth: 'user',
    tag: 'Users',
    summary: 'Reactivate a released agent; 409 tier_limit_reached at your tier limit',
    params: AgentIdParams,
    response: AgentAction,
    errors: [404, 409],
  }),
  updateUserAgentSettings: endpoint({
    method: 'patch',
    path: '/api/sdk/agents/{agent_id}/settings',
    auth: 'user',
    tag: 'Users',
    summary: "Change one of your agents' name or auto-redeem setting (ownership checked first)",
    params: AgentIdParams,
    body: AgentSettingsUpdateSchema,
    response: AgentSettingsResponseSchema,
    errors: [404],
  }),
  setUserTier: endpoint({
    method: 'put',
    path: '/api/admin/users/{user_id}/tier',
    auth: 'operator',
    tag: 'Operator',
    summary: "Set a user's tier (free, pro, elite)",
    params: z.object({ user_id: z.string().min(1).max(200) }),
    body: z.strictObject({ tier: z.enum(TIERS) }),
    response: z.object({ user_id: z.string(), tier: z.enum(TIERS), active_agents: z.number() }),
  }),
};
