import { z } from 'zod';

/**
 * The wire of client-signed orders: the service quotes an unsigned transaction, the agent's own
 * wallet signs it, the signed copy comes back to be relayed (VenueTrading `quote`/`submitSigned`).
 * Kalshi through DFlow is the venue that trades this way; the OpenAPI ids are the ones its
 * endpoints were published with, so clients generated from the spec keep their type names.
 */

const lower = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : v);
/** What a quote and a submit are for, as the client sends it. */
const TRADE_TARGET = {
  market_id: z.string().trim().min(1).max(200),
  side: z.preprocess(lower, z.enum(['yes', 'no'])),
  action: z.preprocess(lower, z.enum(['buy', 'sell'])).default('buy'),
};

export const SignedQuoteRequestSchema = z
  .object({
    ...TRADE_TARGET,
    amount: z
      .number()
      .min(0)
      .max(1e9)
      .default(0)
      .meta({ description: 'USDC to spend on a buy, 2 decimals.' }),
    shares: z.number().min(0).max(1e9).default(0).meta({ description: 'Contracts to sell, 5 decimals.' }),
    wallet_address: z.string().max(100).nullish().meta({ description: 'The Solana wallet that signs.' }),
  })
  .meta({ id: 'KalshiQuoteRequest' });
export type SignedQuoteRequest = z.output<typeof SignedQuoteRequestSchema>;

export const SignedQuoteResultSchema = z
  .looseObject({
    success: z.boolean(),
    quote_id: z.string().nullable(),
    transaction: z.string().nullable().meta({ description: 'Unsigned v0 VersionedTransaction, base64.' }),
    in_amount: z.number().nullable(),
    out_amount: z.number().nullable(),
    price: z.number().nullable(),
    expires_at: z.string().nullable(),
    wallet_address: z.string().nullable(),
    wallet_ownership_verified: z.boolean().nullable(),
    error: z.string().nullable(),
    error_code: z.string().nullable(),
    hint: z.string().nullable(),
    fix: z.string().nullable(),
  })
  .meta({ id: 'KalshiQuoteResult' });
export type SignedQuoteResult = z.input<typeof SignedQuoteResultSchema>;

export const SignedSubmitRequestSchema = z
  .object({
    ...TRADE_TARGET,
    signed_transaction: z
      .string()
      .min(1)
      .max(20_000)
      .meta({ description: 'The quoted transaction, signed, base64.' }),
    quote_id: z.string().min(1).max(100),
    reasoning: z.string().max(5000).nullish(),
    source: z.string().max(200).nullish(),
    skill_slug: z.string().max(200).nullish(),
  })
  .meta({ id: 'KalshiSubmitRequest' });
export type SignedSubmitRequest = z.output<typeof SignedSubmitRequestSchema>;

/** Whether a wallet passed the venue's identity check (KYC), and where it can. */
export interface SignerIdentityStatus {
  wallet: string;
  verified: boolean;
  verify_url: string;
}
