import { z } from 'zod';
import { EvmAddressSchema } from './wallet.schemas.js';
import { freeFormArray } from '../../util/free-form-object.js';

/** The client sends `no_cache=1` / `include_tx_params=1` (client-contract §8.3); `true`/`yes` work too. */
const boolParam = z.preprocess(
  (v) => (typeof v === 'string' ? ['true', '1', 'yes'].includes(v.toLowerCase()) : v),
  z.boolean(),
);

export const AllowancesParamsSchema = z.object({ address: EvmAddressSchema });

export const AllowancesQuerySchema = z.object({
  no_cache: boolParam
    .default(false)
    .meta({ description: 'Read the chain now instead of the ≤30 s cached answer.' }),
  include_tx_params: boolParam
    .default(false)
    .meta({ description: 'Also return the unsigned approval transactions for the missing keys.' }),
});

const UnsignedTxSchema = z
  .object({
    from: z.string(),
    to: z.string(),
    data: z.string(),
    value: z.literal(0),
    chainId: z.number().int(),
    kind: z.string().meta({ description: 'How the broadcast relay will classify it once signed.' }),
  })
  .meta({ id: 'UnsignedApprovalTx' });

export const AllowancesResponseSchema = z
  .object({
    address: z.string().meta({ description: 'The wallet, EIP-55 checksummed.' }),
    all_set: z.boolean().meta({
      description:
        "Every approval trading and redemption need is in place: the twelve the official client's set_approvals() signs (pUSD to CTF Exchange V2, Neg Risk Exchanges A and B, the NegRiskAdapter, the V2 fee escrow and the CTF collateral adapter; CTF operator to the same exchanges, the NegRiskAdapter and both collateral adapters).",
    }),
    allowances: z.record(z.string(), z.boolean()).meta({
      description:
        'Keyed `pusd_<spender lowercase>` (pUSD allowance > 0) and `ctf_<spender lowercase>` (CTF operator approval).',
    }),
    missing: z.array(z.string()).meta({ description: 'The keys of `allowances` that are false.' }),
    checked_at: z
      .string()
      .meta({ description: 'When the chain was read (ISO 8601); answers are cached ≤30 s.' }),
    transactions: z.array(UnsignedTxSchema).optional().meta({
      description:
        'With `include_tx_params=1`: one unsigned transaction per missing key (chain id 137) to sign and send through POST /api/sdk/wallet/broadcast-tx.',
    }),
  })
  .meta({ id: 'Allowances' });

/** A JSON-RPC 2.0 request; the method list is enforced by the handler so refusals stay JSON-RPC answers. */
export const RpcRequestSchema = z
  .object({
    jsonrpc: z.literal('2.0').optional(),
    method: z.string().min(1).max(64),
    params: freeFormArray().max(16).default([]),
    id: z.union([z.string().max(64), z.number(), z.null()]).default(null),
  })
  .meta({ id: 'JsonRpcRequest' });

export const RpcResponseSchema = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number(), z.null()]),
    result: z.unknown().optional(),
    error: z.object({ code: z.number(), message: z.string(), data: z.unknown().optional() }).optional(),
  })
  .meta({ id: 'JsonRpcResponse' });
