import { z } from 'zod';
import { ClobCredentialsRequestSchema, EvmAddressSchema } from './wallet.schemas.js';

export const AgentWalletRegisterRequestSchema = z
  .object({
    agent_id: z.string().trim().min(1).max(200).optional().meta({
      description:
        'The agent the wallet is for: required with a user token; with an agent key, the calling agent.',
    }),
    wallet_source: z.string().trim().max(50).nullish().meta({
      description:
        'Omit (or `managed`): the service creates and holds the key. `ows` and other client-held keys are no longer accepted (410).',
    }),
    ows_wallet_name: z
      .string()
      .max(200)
      .nullish()
      .meta({ description: 'Retired (OWS registrations answer 410).' }),
    wallet_address: z
      .string()
      .max(200)
      .nullish()
      .meta({ description: 'Retired: the managed key’s address is chosen by the service (410 when sent).' }),
  })
  .meta({ id: 'AgentWalletRegisterRequest' });
export type AgentWalletRegisterRequest = z.output<typeof AgentWalletRegisterRequestSchema>;

export const AgentWalletSchema = z
  .object({
    agent_id: z.string(),
    agent_name: z.string(),
    wallet_address: z
      .string()
      .meta({ description: 'Checksummed; send it as `wallet_address` on a trade to use it.' }),
    wallet_source: z.literal('managed'),
    clob_credentials_registered: z.boolean(),
    approvals_set: z.boolean(),
    created_at: z.string(),
  })
  .meta({ id: 'AgentWallet' });

export const AgentWalletRegisterResponseSchema = AgentWalletSchema.extend({
  success: z.literal(true),
  created: z
    .boolean()
    .meta({ description: 'False when the agent already had its wallet (the same one is returned).' }),
  message: z.string(),
}).meta({ id: 'AgentWalletRegistered' });

export const AgentWalletListResponseSchema = z
  .object({ wallets: z.array(AgentWalletSchema) })
  .meta({ id: 'AgentWalletList' });

export const AgentWalletPnlParamsSchema = z.object({ agent_id: z.string().min(1).max(200) });

export const AgentWalletPnlResponseSchema = z
  .object({
    agent_id: z.string(),
    wallet_address: z
      .string()
      .nullable()
      .meta({ description: 'Null when the agent has no wallet of its own.' }),
    realized_pnl: z.number(),
    unrealized_pnl: z.number(),
    total_pnl: z.number(),
    total_cost: z.number().meta({ description: 'Cost basis of the real-venue positions held (USDC).' }),
    total_value: z.number(),
    positions: z.array(z.record(z.string(), z.unknown())).meta({
      description: 'The agent’s real-venue positions, as rows of GET /api/sdk/positions.',
    }),
  })
  .meta({ id: 'AgentWalletPnl' });

export const AgentWalletUpdateCredsRequestSchema = z
  .object({
    wallet_address: EvmAddressSchema,
    clob_api_creds: ClobCredentialsRequestSchema.optional().meta({
      description: 'L2 credentials derived with this wallet’s key; stored encrypted, never returned.',
    }),
    approvals_set: z.boolean().optional(),
  })
  .meta({ id: 'AgentWalletUpdateCredsRequest' });
export type AgentWalletUpdateCredsRequest = z.output<typeof AgentWalletUpdateCredsRequestSchema>;

export const AgentWalletUpdateCredsResponseSchema = AgentWalletSchema.extend({
  success: z.literal(true),
  message: z.string(),
}).meta({ id: 'AgentWalletUpdated' });
