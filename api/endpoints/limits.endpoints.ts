import { z } from 'zod';
import {
  TradingSettingsResponseSchema,
  TradingSettingsUpdateSchema,
} from '../../shared/domains/limits/settings.schemas.js';
import { endpoint } from './endpoint.js';

const OWNER_NOTE =
  'With an agent API key this acts on the agent’s owner (a claimed agent shares its human’s settings; an unclaimed agent has its own); with a user JWT, on that user.';
const UPDATE_NOTE = `${OWNER_NOTE} Partial bodies; unknown and read-only fields (balance, status, tier, wallet…) are refused with 422.`;

const settingsUpdate = (method: 'patch' | 'post', path: string, summary: string) =>
  endpoint({
    method,
    path,
    auth: 'agent-or-user',
    tag: 'Settings',
    summary,
    description: UPDATE_NOTE,
    body: TradingSettingsUpdateSchema,
    response: TradingSettingsResponseSchema,
    errors: [403, 409],
  });

const CooldownSchema = z
  .object({
    type: z.enum(['rate_limit', 'failure', 'kill_switch']),
    kind: z.string(),
    venue: z.string().nullable(),
    market_id: z.string().nullable(),
    question: z.string().nullable(),
    side: z.enum(['yes', 'no']).nullable(),
    reason: z.string(),
    expires_at: z.string().nullable(),
    seconds_remaining: z.number().nullable(),
  })
  .meta({ id: 'Cooldown' });

export const limitsEndpoints = {
  getSdkSettings: endpoint({
    method: 'get',
    path: '/api/sdk/settings',
    auth: 'agent-or-user',
    tag: 'Settings',
    summary: 'Trading safeguards and real-trading switch (SDK settings)',
    description: OWNER_NOTE,
    response: TradingSettingsResponseSchema,
  }),
  patchSdkSettings: settingsUpdate('patch', '/api/sdk/settings', 'Change SDK settings'),
  postSdkSettings: settingsUpdate(
    'post',
    '/api/sdk/settings',
    'Change SDK settings (POST form, same as PATCH)',
  ),
  getUserSettings: endpoint({
    method: 'get',
    path: '/api/sdk/user/settings',
    auth: 'agent-or-user',
    tag: 'Settings',
    summary: 'Trading limits, kill switch, risk defaults and Solana wallet (user settings)',
    description: OWNER_NOTE,
    response: TradingSettingsResponseSchema,
  }),
  patchUserSettings: settingsUpdate(
    'patch',
    '/api/sdk/user/settings',
    'Change user settings: max_trades_per_day, trading_paused (kill switch), risk defaults, bot_solana_wallet',
  ),
  agentCooldowns: endpoint({
    method: 'get',
    path: '/api/sdk/agents/{agent_id}/cooldowns',
    auth: 'agent-or-user',
    // An agent key reads only its own agent's cooldowns here (the handler checks the id).
    releasedAgent: 'answers-itself',
    tag: 'Settings',
    summary: 'What would refuse this agent’s next buy now: cooldowns with expiry, daily counts, kill switch',
    description: 'The agent’s own API key, or its owner’s JWT (another user’s agent answers 404).',
    params: z.object({ agent_id: z.string().min(1).max(100) }),
    response: z
      .object({
        agent_id: z.string(),
        checked_at: z.string(),
        cooldowns: z.array(CooldownSchema),
        daily: z.object({
          trades_today: z.number().int(),
          max_trades_per_day: z.number().int(),
          remaining: z.number().int(),
          limit_reached: z.boolean(),
          spent_today: z.number(),
          daily_limit: z.number(),
          resets_at: z.string(),
        }),
        trading_paused: z.boolean(),
      })
      .meta({ id: 'AgentCooldowns' }),
    errors: [404],
  }),
};
