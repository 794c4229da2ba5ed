import { z } from 'zod';
import { DwRedeemPreparedSchema } from './deposit-wallet.schemas.js';
import { REDEMPTION_STATUSES } from './redemption.model.js';

const MarketSide = {
  market_id: z.string().min(1).max(200),
  /** The side the client believes won; the adapter redeems both outcomes whatever it says. */
  side: z.enum(['yes', 'no']).nullish(),
};

export const RedeemRequestSchema = z.object(MarketSide).meta({ id: 'RedeemRequest' });

export const RedeemResponseSchema = z
  .object({
    success: z.boolean(),
    market_id: z.string(),
    side: z.enum(['yes', 'no']).nullable(),
    condition_id: z.string(),
    status: z.enum([...REDEMPTION_STATUSES, 'submitted']).meta({
      description:
        '`prepared`: sign `unsigned_tx` (external wallet); `sent`/`submitted`: in flight; `redeemed`: paid; `failed`: see `error`.',
    }),
    tx_hash: z.string().nullable(),
    unsigned_tx: z
      .object({
        to: z.string(),
        data: z.string(),
        from: z.string(),
        gas: z.number().int().optional(),
        chainId: z.number().int(),
        value: z.number().int(),
      })
      .optional()
      .meta({
        description:
          'External wallets: the redemption to sign and relay through POST /api/sdk/wallet/broadcast-tx, then report with POST /api/sdk/redeem/report.',
      }),
    payout: z.number().meta({ description: 'pUSD paid (redeemed), or expected (otherwise).' }),
    already_redeemed: z.boolean(),
    error: z.string().nullable(),
    message: z.string(),
  })
  .meta({ id: 'RedeemResponse' });

export const RedeemReportSchema = z
  .object({
    ...MarketSide,
    tx_hash: z
      .string()
      .regex(/^0x[0-9a-fA-F]{64}$/)
      .meta({ description: 'The hash of the redemption the client signed and sent.' }),
  })
  .meta({ id: 'RedeemReport' });

export const RedeemReportResponseSchema = z
  .object({
    success: z.boolean(),
    market_id: z.string(),
    tx_hash: z.string(),
    recorded: z.boolean().meta({ description: 'False when this tx_hash was reported before (a no-op).' }),
    positions_settled: z.number().int(),
    payout: z.number(),
    message: z.string(),
  })
  .meta({ id: 'RedeemReportResponse' });

export const DwRedeemPrepareResponseSchema = z
  .object({
    success: z.boolean(),
    market_id: z.string(),
    eoa_fallback: z.boolean().optional(),
    already_redeemed: z.boolean().optional(),
    not_redeemable: z.boolean().optional(),
    reason: z.string().optional(),
    detail: z.string().optional(),
    ...DwRedeemPreparedSchema.shape,
    message: z.string(),
  })
  .meta({ id: 'DwRedeemPrepareResponse' });
