import { z } from 'zod';
import { venueEnum } from '../venues/venue-schemas.js';

/** Wallets one agent may watch: bounds the watcher index and every fill's fan-out. */
export const MAX_WATCHED_WALLETS = 100;
/** Largest size filter, mirror size and daily cap accepted (shares, venue units). */
const MAX_QUANTITY = 10_000_000;

/** An EVM wallet address, stored and compared in lower case. */
export const WalletAddressSchema = z
  .string()
  .trim()
  .regex(/^0x[0-9a-fA-F]{40}$/, 'not a wallet address: 0x followed by 40 hex digits')
  .transform((w) => w.toLowerCase());

const shares = z.number().min(0).max(MAX_QUANTITY);

export const WatchEntrySchema = z.strictObject({
  wallet: WalletAddressSchema,
  label: z
    .string()
    .trim()
    .max(80)
    .nullish()
    .meta({ description: 'A name for the wallet (shown with its events).' }),
  auto_copy: z.boolean().optional().meta({
    description:
      'The reactor MCP client runs its reactive skill by itself on this wallet’s events (default false).',
  }),
  enabled: z
    .boolean()
    .optional()
    .meta({ description: 'Watched (default true); a disabled entry keeps its settings.' }),
  min_size: shares
    .optional()
    .meta({ description: 'This wallet’s own smallest fill in shares (default 0), on top of min_size.' }),
});

/**
 * `PATCH /api/sdk/reactor/config` (client-contract §12.1): any of the fields, strict. `wallets` and
 * `watchlist` are two views of one list: `watchlist` replaces it; `wallets` makes the watched
 * wallets exactly these (entries already there keep their label, auto_copy and min_size and are
 * enabled; new ones get the defaults; entries not named are removed). Sending both is accepted when
 * `wallets` are the enabled wallets of `watchlist` (a config read and sent back whole).
 */
export const ReactorConfigUpdateSchema = z
  .strictObject({
    wallets: z
      .array(WalletAddressSchema)
      .max(MAX_WATCHED_WALLETS)
      .meta({
        description: `The wallets watched (at most ${MAX_WATCHED_WALLETS}), any case; replaces the list.`,
      }),
    watchlist: z
      .array(WatchEntrySchema)
      .max(MAX_WATCHED_WALLETS)
      .meta({ description: 'The watched wallets with their settings; replaces the list.' }),
    min_size: shares.meta({
      description: 'A watched wallet’s smallest fill that makes a signal, in shares.',
    }),
    max_size: z.number().gt(0).max(MAX_QUANTITY).meta({
      description: 'Largest mirror, in shares (the whale’s shares × mirror_fraction is capped here).',
    }),
    mirror_fraction: z
      .number()
      .gt(0)
      .max(1)
      .meta({ description: 'The share of the whale’s fill mirrored, a fraction (0.01 = 1 %).' }),
    daily_cap: z.number().min(0).max(MAX_QUANTITY).meta({
      description: 'Most mirrored per UTC day in venue units ($SIM on sim, USD elsewhere); buys count.',
    }),
    venue: venueEnum('ids').meta({ description: 'Where the skill mirrors the signals.' }),
    enabled: z.boolean(),
    price_buffer: z
      .number()
      .min(0)
      .max(0.2)
      .meta({ description: 'The skill mirrors at the whale’s price × (1 ± price_buffer); 0–0.2.' }),
  })
  .partial();
export type ReactorConfigUpdate = z.output<typeof ReactorConfigUpdateSchema>;
export type WatchEntryInput = z.output<typeof WatchEntrySchema>;

const WatchEntryViewSchema = z.object({
  wallet: z.string(),
  label: z.string().nullable(),
  auto_copy: z.boolean(),
  enabled: z.boolean(),
  min_size: z.number(),
});

export const ReactorConfigSchema = z
  .object({
    agent_id: z.string(),
    enabled: z.boolean(),
    venue: z.string(),
    wallets: z.array(z.string()).meta({ description: 'The enabled wallets of watchlist.' }),
    watchlist: z.array(WatchEntryViewSchema),
    min_size: z.number(),
    max_size: z.number(),
    mirror_fraction: z.number(),
    daily_cap: z.number(),
    daily_cap_used: z.number().meta({ description: 'Mirrored today (UTC) against daily_cap.' }),
    price_buffer: z.number(),
    signal_ttl_seconds: z.number().int().meta({ description: 'How long a signal stays pending.' }),
    updated_at: z.string().nullable(),
  })
  .meta({ id: 'ReactorConfig' });
