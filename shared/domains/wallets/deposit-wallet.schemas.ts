import { z } from 'zod';
import { DEPOSIT_WALLET_BATCH_STATUSES } from './wallet.model.js';
import { EvmAddressSchema } from './wallet.schemas.js';

// Deposit wallets (Polymarket signature type 3) of external wallets: client-contract §8.4, §8.5.
// Every batch flow is prepare → the owner signs `typed_data` locally → submit with the same
// `nonce`, `deadline` and `calls`; the service relays only batches it prepared.

/**
 * A uint256 as JSON sends it (decimal string or integer), kept as a decimal string. The bound is
 * checked in a transform, after the union: zod still runs a refine when a union member failed, and
 * `BigInt("AAA")` would throw there (a 500 the contract fuzzer found).
 */
const Uint256Schema = z
  .union([z.string().regex(/^\d{1,78}$/), z.number().int().nonnegative()])
  .transform((v, ctx) => {
    if (BigInt(v) < 2n ** 256n) return String(v);
    ctx.addIssue({ code: 'custom', message: 'at most 2^256 - 1' });
    return z.NEVER;
  });

export const DwCallSchema = z
  .object({
    target: EvmAddressSchema,
    value: Uint256Schema.meta({ description: 'Wei as a decimal string; always "0" (no batch moves POL).' }),
    data: z
      .string()
      .regex(/^0x([0-9a-fA-F]{2}){4,}$/, 'calldata as 0x-prefixed hex of at least 4 bytes')
      .max(20_000),
  })
  .meta({ id: 'DepositWalletCall' });

const TypedDataSchema = z.record(z.string(), z.unknown()).meta({
  description:
    'EIP-712 `Batch(address wallet,uint256 nonce,uint256 deadline,Call[] calls)Call(address target,uint256 value,bytes data)` under domain `{name: "DepositWallet", version: "1", chainId: 137, verifyingContract: <deposit wallet>}`, with `types.EIP712Domain` and `primaryType`: sign it whole (eth_account `sign_typed_data(key, full_message=typed_data)`, `eth_signTypedData_v4`).',
});

const PreparedBatch = {
  deposit_wallet_address: z.string(),
  typed_data: TypedDataSchema,
  nonce: z.string().meta({ description: 'The wallet’s batch nonce: send it back unchanged.' }),
  deadline: z.string().meta({
    description:
      'Unix seconds after which the relayer refuses the batch (at most 300 s ahead): send it back unchanged.',
  }),
  calls: z.array(DwCallSchema).meta({
    description: 'The calls the batch executes from the deposit wallet, in order: send them back unchanged.',
  }),
};

export const DwSubmitRequestSchema = z
  .object({
    signature: z
      .string()
      .trim()
      .regex(/^(0x)?[0-9a-fA-F]{130}$/, 'the 65-byte signature as hex'),
    nonce: Uint256Schema,
    deadline: z.union([z.string().regex(/^\d{1,20}$/), z.number().int().nonnegative()]).transform(String),
    calls: z.array(DwCallSchema).min(1).max(40),
  })
  .meta({ id: 'DepositWalletSubmitRequest' });
export type DwSubmitRequest = z.output<typeof DwSubmitRequestSchema>;

export const DwWrapSubmitRequestSchema = DwSubmitRequestSchema.extend({
  amount_units: z
    .union([z.string().regex(/^\d{1,30}$/), z.number().int().nonnegative()])
    .transform(String)
    .optional()
    .meta({ description: 'The amount prepare answered (informational: the calls say what is wrapped).' }),
}).meta({ id: 'DepositWalletWrapSubmitRequest' });

export const DwSubmitResponseSchema = z
  .object({
    success: z.boolean(),
    deposit_wallet_address: z.string(),
    status: z.enum(DEPOSIT_WALLET_BATCH_STATUSES).meta({
      description:
        '`executed`: done on chain; `submitted`: the relayer has it, not final yet (ask again with the same body to follow it).',
    }),
    tx_id: z.string().nullable().meta({ description: 'The relayer’s transaction id.' }),
    tx_hash: z.string().nullable(),
    calls_executed: z.number().int(),
    message: z.string(),
  })
  .meta({ id: 'DepositWalletSubmitResponse' });

export const DwApprovalsPrepareRequestSchema = z
  .object({
    combo: z.boolean().default(false).meta({
      description:
        'Also approve the combo exchange (pUSD, and combo position tokens on the PositionManager).',
    }),
  })
  .meta({ id: 'DepositWalletApprovalsPrepareRequest' });

export const DwApprovalsPrepareResponseSchema = z
  .object({
    success: z.literal(true),
    already_set: z
      .boolean()
      .meta({ description: 'True: every approval is in place, nothing to sign (no other fields).' }),
    deposit_wallet_address: z.string(),
    typed_data: TypedDataSchema.optional(),
    nonce: PreparedBatch.nonce.optional(),
    deadline: PreparedBatch.deadline.optional(),
    calls: PreparedBatch.calls.optional(),
    calls_count: z.number().int(),
    message: z.string(),
  })
  .meta({ id: 'DepositWalletApprovalsPrepareResponse' });

export const DwWrapPrepareResponseSchema = z
  .object({
    success: z.literal(true),
    amount_units: z.number().int().meta({
      description:
        'USDC.e in the deposit wallet (base units, 6 decimals); 0: nothing to wrap, no other fields.',
    }),
    deposit_wallet_address: z.string(),
    typed_data: TypedDataSchema.optional(),
    nonce: PreparedBatch.nonce.optional(),
    deadline: PreparedBatch.deadline.optional(),
    calls: PreparedBatch.calls.optional(),
    message: z.string(),
  })
  .meta({ id: 'DepositWalletWrapPrepareResponse' });

export const DwUpgradeResponseSchema = z
  .object({
    success: z.literal(true),
    wallet_address: z.string().meta({ description: 'The owner EOA (signs orders and batches).' }),
    deposit_wallet_address: z.string(),
    already_existed: z
      .boolean()
      .meta({ description: 'The wallet was deployed before this call (e.g. created on polymarket.com).' }),
    wallet_uses_deposit_wallet: z.literal(true),
    signature_type: z.literal(3),
    tx_id: z
      .string()
      .nullable()
      .meta({ description: 'The relayer’s WALLET-CREATE transaction; null when it existed.' }),
    message: z.string(),
  })
  .meta({ id: 'DepositWalletUpgradeResponse' });

export const AgentIdParamsSchema = z.object({ agent_id: z.string().min(1).max(100) });

export const DwRedeemPreparedSchema = z.object({
  typed_data: TypedDataSchema.optional(),
  nonce: PreparedBatch.nonce.optional(),
  deadline: PreparedBatch.deadline.optional(),
  calls: PreparedBatch.calls.optional(),
  deposit_wallet_address: z.string().optional(),
  condition_id: z.string().optional(),
  outcome: z.enum(['yes', 'no']).optional().meta({
    description: 'The winning outcome; absent after a 50-50 (void) resolution, which `is_cancelled` marks.',
  }),
  negative_risk: z.boolean().optional(),
  is_cancelled: z.boolean().optional(),
  expected_payout_pusd: z.number().optional(),
});

export const DwRedeemSubmitRequestSchema = DwSubmitRequestSchema.extend({
  market_id: z.string().min(1).max(200),
  side: z.enum(['yes', 'no']).nullish(),
}).meta({ id: 'DwRedeemSubmitRequest' });

export const DwRedeemSubmitResponseSchema = DwSubmitResponseSchema.extend({
  market_id: z.string(),
  payout_pusd: z
    .number()
    .meta({ description: 'pUSD paid into the deposit wallet (winning shares settled).' }),
}).meta({ id: 'DwRedeemSubmitResponse' });
