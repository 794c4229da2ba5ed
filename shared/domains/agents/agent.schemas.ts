import { z } from 'zod';
import { WalletFieldsSchema } from '../wallets/wallet.schemas.js';
import { AGENT_STATUSES } from './agent.model.js';
import { agentNameSchema } from './agent-name.js';

const optionalText = (max: number) => z.string().trim().max(max).nullish();

export const RegisterAgentRequestSchema = z
  .object({
    name: agentNameSchema,
    description: optionalText(2000),
    homepage: z.url().max(500).nullish(),
    skill_url: z.url().max(500).nullish(),
  })
  .meta({ id: 'RegisterAgentRequest' });
export type RegisterAgentRequest = z.output<typeof RegisterAgentRequestSchema>;

export const AgentLimitsSchema = z
  .object({
    sim: z.boolean(),
    real_trading: z.boolean(),
    max_trade_usd: z.number(),
    daily_limit_usd: z.number(),
  })
  .meta({ id: 'AgentLimits' });

export const RegisterAgentResponseSchema = z
  .object({
    agent_id: z.uuid(),
    api_key: z.string().meta({ description: 'Shown once. Send as `Authorization: Bearer <api_key>`.' }),
    key_prefix: z.string(),
    claim_code: z.string(),
    claim_url: z.string(),
    status: z.literal('unclaimed'),
    starting_balance: z.number(),
    limits: AgentLimitsSchema,
  })
  .meta({ id: 'RegisterAgentResponse' });

export const AgentStatusSchema = z.enum(AGENT_STATUSES);

export const AgentMeQuerySchema = z.object({
  include: z
    .string()
    .optional()
    .meta({ description: 'Comma-separated optional blocks; `pnl` adds the P&L fields.', example: 'pnl' }),
});

const pnlFields = {
  sim_pnl: z.number().optional(),
  total_pnl: z.number().optional(),
  total_pnl_percent: z.number().optional(),
  sim_pnl_percent: z.number().optional(),
  polymarket_pnl: z.number().optional(),
  kalshi_pnl: z.number().optional(),
};

export const AgentMeResponseSchema = z
  .object({
    agent_id: z.uuid(),
    name: z.string(),
    description: z.string().nullable(),
    status: AgentStatusSchema,
    balance: z.number().meta({ description: '$SIM balance.' }),
    starting_balance: z.number(),
    trades_count: z.number().int(),
    win_count: z.number().int(),
    loss_count: z.number().int(),
    win_rate: z.number().nullable(),
    sim_win_count: z.number().int(),
    sim_loss_count: z.number().int(),
    sim_win_rate: z.number().nullable(),
    claimed: z.boolean(),
    claimed_by: z.string().nullable(),
    claimed_at: z.string().nullable(),
    real_trading_enabled: z.boolean(),
    created_at: z.string(),
    last_trade_at: z.string().nullable(),
    key_prefix: z.string(),
    claim_url: z.string().nullable(),
    rate_limits: z.object({
      tier: z.string(),
      imports_per_day: z.number().int(),
      endpoints: z.record(z.string(), z.object({ requests_per_minute: z.number() })),
    }),
    auto_redeem_enabled: z.boolean(),
    ...WalletFieldsSchema.shape,
    per_agent_wallet_address: z
      .string()
      .nullable()
      .meta({ description: 'The agent’s own (Elite) wallet, when it registered one.' }),
    per_agent_deposit_wallet_address: z.string().nullable().meta({
      description:
        'The deposit wallet the agent trades through (the one /api/user/agent/{agent_id}/wallet/external/dw-approvals acts on): its account’s, when the agent has no wallet of its own and the account trades through one.',
    }),
    per_agent_dw_active: z.boolean().nullable().meta({
      description:
        'Whether the agent’s orders are signed as that deposit wallet (type 3); false for its own managed wallet or an EOA account wallet, null with no wallet at all.',
    }),
    ...pnlFields,
  })
  .meta({ id: 'AgentMe' });
export type AgentMeResponse = z.input<typeof AgentMeResponseSchema>;

export const AgentSettingsUpdateSchema = z
  .strictObject({
    auto_redeem_enabled: z.boolean().nullish(),
    name: agentNameSchema.nullish(),
  })
  .meta({ id: 'AgentSettingsUpdate' });
export type AgentSettingsUpdate = z.output<typeof AgentSettingsUpdateSchema>;

export const AgentSettingsResponseSchema = z
  .object({
    success: z.literal(true),
    agent_id: z.uuid(),
    name: z.string(),
    auto_redeem_enabled: z.boolean(),
  })
  .meta({ id: 'AgentSettings' });

export const ClaimCodeParamsSchema = z.object({
  claim_code: z.string().min(3).max(40).meta({ example: 'reef-X4B2Q7-M9KD3T-7HWQ2P' }),
});

export const ClaimInfoResponseSchema = z
  .object({
    agent_id: z.uuid(),
    name: z.string(),
    description: z.string().nullable(),
    status: AgentStatusSchema,
    claimed: z.boolean(),
    claim_code: z.string(),
    claim_code_expires_at: z
      .string()
      .nullable()
      .meta({ description: 'When the code stops working unless rotated; null once claimed.' }),
    created_at: z.string(),
    starting_balance: z.number(),
    claim_instructions: z.string(),
  })
  .meta({ id: 'ClaimInfo', description: 'Public information for a claim page. Never carries the API key.' });

export const RotateClaimCodeResponseSchema = z
  .object({
    success: z.literal(true),
    agent_id: z.uuid(),
    claim_code: z.string(),
    claim_url: z.string(),
    claim_code_expires_at: z.string(),
  })
  .meta({ id: 'RotatedClaimCode' });
