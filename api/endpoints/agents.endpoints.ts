import {
  AgentMeQuerySchema,
  AgentMeResponseSchema,
  AgentSettingsResponseSchema,
  AgentSettingsUpdateSchema,
  ClaimCodeParamsSchema,
  ClaimInfoResponseSchema,
  RegisterAgentRequestSchema,
  RegisterAgentResponseSchema,
  RotateClaimCodeResponseSchema,
} from '../../shared/domains/agents/agent.schemas.js';
import { z } from 'zod';
import { endpoint } from './endpoint.js';

export const agentEndpoints = {
  registerAgent: endpoint({
    method: 'post',
    path: '/api/sdk/agents/register',
    auth: 'none',
    tag: 'Agents',
    summary: 'Register an agent',
    description:
      'Creates an agent that can paper-trade on `sim` at once with 10,000 $SIM. The API key is returned once and stored only as a hash. Limited to 10 registrations per minute per IP.',
    body: RegisterAgentRequestSchema,
    response: RegisterAgentResponseSchema,
    errors: [429],
    rateLimit: 'register',
  }),
  getMe: endpoint({
    method: 'get',
    path: '/api/sdk/agents/me',
    auth: 'agent',
    freshAgent: true,
    tag: 'Agents',
    summary: 'The calling agent: status, balance, claim state, and P&L with include=pnl',
    query: AgentMeQuerySchema,
    response: AgentMeResponseSchema,
  }),
  updateMySettings: endpoint({
    method: 'patch',
    path: '/api/sdk/agents/me/settings',
    auth: 'agent',
    tag: 'Agents',
    summary: "Change the calling agent's name or auto-redeem setting",
    body: AgentSettingsUpdateSchema,
    response: AgentSettingsResponseSchema,
  }),
  getClaimInfo: endpoint({
    method: 'get',
    path: '/api/sdk/agents/claim/{claim_code}',
    auth: 'none',
    tag: 'Agents',
    summary: 'Public information about an agent for its claim page (never the key)',
    description:
      'An unclaimed code expires CLAIM_CODE_TTL_HOURS after it was issued (410 `claim_code_expired`; the agent rotates it). 30 lookups per minute per IP, shared with `/claim/{claim_code}`.',
    params: ClaimCodeParamsSchema,
    response: ClaimInfoResponseSchema,
    errors: [404, 410, 429],
    rateLimit: 'claim-lookup',
  }),
  claimPage: endpoint({
    method: 'get',
    path: '/claim/{claim_code}',
    auth: 'none',
    tag: 'Agents',
    summary: 'Human-readable claim page (the `claim_url` of a registration)',
    params: ClaimCodeParamsSchema,
    response: z.string(),
    produces: 'text/html',
    errors: [404, 410, 429],
    rateLimit: 'claim-lookup',
  }),
  rotateClaimCode: endpoint({
    method: 'post',
    path: '/api/sdk/agents/me/claim-code/rotate',
    auth: 'agent',
    tag: 'Agents',
    summary: "Replace the calling (unclaimed) agent's claim code: the old code stops working at once",
    description:
      'For a code shared too widely or expired. The new code works for CLAIM_CODE_TTL_HOURS; a claimed agent has none to rotate (409 `already_claimed`).',
    response: RotateClaimCodeResponseSchema,
    errors: [409],
  }),
};
