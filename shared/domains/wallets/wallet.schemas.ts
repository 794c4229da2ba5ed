import { isAddress } from 'ethers';
import { z } from 'zod';

/** An EVM address as sent: 0x + 40 hex digits; a mixed-case one must carry a valid EIP-55 checksum. */
export const EvmAddressSchema = z
  .string()
  .trim()
  .regex(/^0x[0-9a-fA-F]{40}$/, 'an EVM address: 0x followed by 40 hex digits')
  .refine((a) => isAddress(a), 'mixed-case address with a wrong EIP-55 checksum');

/** Challenge nonces are 32 hex digits; anything else cannot have been issued here. */
export const ChallengeNonceSchema = z
  .string()
  .trim()
  .regex(/^[0-9A-Za-z]{8,64}$/, 'the nonce returned by GET /api/sdk/wallet/link/challenge');

const WalletOwnershipSchema = z.enum(['native', 'external']).nullable().meta({
  description:
    '`external`: a wallet you linked (you sign); `native`: the managed wallet this service holds the key of.',
});

/** The wallet fields of settings, agents/me and the link answers (client-contract §3.2, §3.3, §8.1). */
export const WalletFieldsSchema = z.object({
  wallet_address: z.string().nullable(),
  linked_wallet_address: z.string().nullable(),
  wallet_ownership: WalletOwnershipSchema,
  wallet_uses_deposit_wallet: z.boolean(),
  deposit_wallet_address: z.string().nullable(),
});

export const WalletChallengeQuerySchema = z.object({
  address: EvmAddressSchema.meta({ description: 'The EVM address (EOA) you will sign with.' }),
});

export const WalletChallengeResponseSchema = z
  .object({
    nonce: z.string(),
    message: z.string().meta({ description: 'Sign exactly this text (EIP-191 personal_sign).' }),
    address: z.string(),
    issued_at: z.string(),
    expires_at: z.string(),
  })
  .meta({ id: 'WalletLinkChallenge' });

export const WalletLinkRequestSchema = z
  .object({
    address: EvmAddressSchema,
    signature: z
      .string()
      .trim()
      .regex(
        /^(0x)?([0-9a-fA-F]{130}|[0-9a-fA-F]{128})$/,
        'the 65-byte signature as hex, with or without 0x',
      ),
    nonce: ChallengeNonceSchema,
    signature_type: z
      .union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)])
      .default(0)
      .meta({
        description:
          '0 EOA, 1 Polymarket proxy wallet, 2 Gnosis Safe, 3 deposit wallet (then `deposit_wallet_address` is required).',
      }),
    confirm_replace_managed: z.boolean().default(false).meta({
      description:
        'Required true when this link replaces your managed wallet with a different external wallet.',
    }),
    confirm_orphan_deposit_wallet: z.boolean().default(false).meta({
      description:
        'Required true when you have an active deposit wallet and link a different address (the deposit wallet would be stranded).',
    }),
    deposit_wallet_address: EvmAddressSchema.nullable()
      .optional()
      .meta({
        description:
          'The deposit wallet of the signing EOA (signature_type 3 only): the address Polymarket’s deposit wallet factory derives ' +
          'for that EOA (CREATE2), as the official SDK derives it. Any other address is refused with 422 and a `fix` naming the right one.',
      }),
    source: z.string().max(100).nullable().optional().meta({
      description: 'Where the link came from (`sdk-link`, `polymarket-import`, `browser`); informational.',
    }),
  })
  .meta({ id: 'WalletLinkRequest' });
export type WalletLinkRequest = z.output<typeof WalletLinkRequestSchema>;

export const WalletLinkResponseSchema = WalletFieldsSchema.extend({
  success: z.literal(true),
  signature_type: z.number().int().nullable(),
  has_credentials: z.boolean(),
  message: z.string(),
}).meta({ id: 'WalletLinkResponse' });

export const WalletUnlinkResponseSchema = WalletFieldsSchema.extend({
  success: z.literal(true),
  unlinked: z.boolean().meta({ description: 'False when no external wallet was linked (nothing changed).' }),
  message: z.string(),
}).meta({ id: 'WalletUnlinkResponse' });

export const ManagedWalletResponseSchema = WalletFieldsSchema.extend({
  success: z.literal(true),
  managed_wallet_address: z.string(),
  created: z.boolean().meta({ description: 'False when the account already had its managed wallet.' }),
  message: z.string(),
}).meta({ id: 'ManagedWalletResponse' });

export const ClobCredentialsRequestSchema = z
  .object({
    api_key: z.string().trim().min(1).max(200),
    api_secret: z.string().trim().min(1).max(500),
    api_passphrase: z.string().trim().min(1).max(500),
  })
  .meta({ id: 'ClobCredentialsRequest' });
export type ClobCredentialsRequest = z.output<typeof ClobCredentialsRequestSchema>;

const digits = (max: number) =>
  z.union([
    z
      .string()
      .trim()
      .regex(new RegExp(`^\\d{1,${max}}$`), 'digits only'),
    z.number().int().min(0),
  ]);

export const DeriveViaProxyRequestSchema = z
  .object({
    poly_address: EvmAddressSchema.meta({ description: 'The EOA that signed the ClobAuth message.' }),
    poly_signature: z
      .string()
      .trim()
      .regex(/^0x[0-9a-fA-F]{130}$/, 'the EIP-712 ClobAuth signature: 0x + 130 hex digits'),
    poly_timestamp: digits(12).meta({ description: 'Unix seconds the signature was made at.' }),
    poly_nonce: digits(20).default('0'),
  })
  .meta({ id: 'DeriveViaProxyRequest' });
export type DeriveViaProxyRequest = z.output<typeof DeriveViaProxyRequestSchema>;

export const ClobCredentialsResponseSchema = z
  .object({
    success: z.literal(true),
    has_credentials: z.literal(true),
    wallet_address: z.string(),
    source: z.enum(['client', 'derived']),
    message: z.string(),
  })
  .meta({ id: 'ClobCredentialsStored', description: 'The credentials themselves are never returned.' });

export const ClobCredentialsCheckSchema = z
  .object({ has_credentials: z.boolean(), wallet_address: z.string().nullable() })
  .meta({ id: 'ClobCredentialsCheck' });
