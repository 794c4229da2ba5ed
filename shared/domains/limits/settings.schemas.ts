import { PublicKey } from '@solana/web3.js';
import { z } from 'zod';
import { WalletFieldsSchema } from '../wallets/wallet.schemas.js';

/** A Solana wallet: a base58 ed25519 public key on the curve (a program-derived address is not a wallet). */
function isSolanaWallet(value: string): boolean {
  try {
    return PublicKey.isOnCurve(new PublicKey(value).toBytes());
  } catch {
    return false;
  }
}

const solanaWallet = z
  .string()
  .trim()
  .refine(isSolanaWallet, 'not a Solana wallet address (a base58 ed25519 public key)')
  .nullable();

/** Whole cents: a cap below one cent would round to zero and refuse everything. */
const dollars = (max: number) => z.number().min(0.01).max(max);

/**
 * Everything an owner may change, shared by `PATCH|POST /api/sdk/settings` and
 * `PATCH /api/sdk/user/settings` (client-contract §3.3). Strict: balance, status, tier, wallets and
 * any other field are refused with a 422 naming the settable ones (no mass assignment).
 */
export const TradingSettingsUpdateSchema = z
  .strictObject({
    max_trades_per_day: z
      .number()
      .int()
      .min(1)
      .meta({ description: 'Buys per UTC day across your agents; at most 1,000 free, 5,000 pro.' }),
    sdk_real_trading_enabled: z.boolean().meta({ description: 'Real-venue trading on or off.' }),
    sdk_max_trade_amount: dollars(1_000_000).meta({ description: 'Per-trade cap on real venues, USD.' }),
    sdk_daily_limit: dollars(10_000_000).meta({ description: 'Daily spend cap on real venues, USD.' }),
    max_position_usd: dollars(10_000_000).meta({
      description: 'Largest real-venue position per market, USD.',
    }),
    trading_paused: z
      .boolean()
      .meta({ description: 'Kill switch: true refuses every trade until set false.' }),
    auto_risk_monitor_enabled: z.boolean(),
    default_stop_loss_pct: z.number().gt(0).max(1).nullable(),
    default_take_profit_pct: z.number().gt(0).max(100).nullable().meta({ description: 'null = off' }),
    bot_solana_wallet: solanaWallet.meta({ description: 'Read back as solana_wallet_address.' }),
    solana_wallet_address: solanaWallet,
    clawdbot_webhook_url: z.string().trim().max(2048).nullable().meta({
      description:
        'Your chat bridge: the agent’s trade events and alerts are also delivered here (a public https URL, checked as webhooks are; null clears). Setting it answers `clawdbot_webhook_secret` once: deliveries are signed with it (X-Simmer-Signature).',
    }),
    clawdbot_chat_id: z
      .string()
      .trim()
      .max(200)
      .nullable()
      .meta({ description: 'Sent as `chat_id` in every delivery to clawdbot_webhook_url.' }),
    clawdbot_channel: z
      .string()
      .trim()
      .max(100)
      .nullable()
      .meta({ description: 'Sent as `channel` in every delivery to clawdbot_webhook_url.' }),
    user_email: z
      .string()
      .max(320)
      .nullable()
      .meta({ description: 'Accepted for older clients and ignored: identity comes from your token.' }),
    dynamic_user_id: z
      .string()
      .max(200)
      .nullable()
      .meta({ description: 'Accepted and ignored, as user_email.' }),
  })
  .partial()
  .meta({ id: 'TradingSettingsUpdate' });
export type TradingSettingsUpdate = z.output<typeof TradingSettingsUpdateSchema>;

export const TradingSettingsResponseSchema = z
  .looseObject({
    tier: z.enum(['free', 'pro', 'elite']),
    settings_owner: z.enum(['user', 'agent']).meta({
      description: '`user` for a claimed agent (shared by all your agents), `agent` before claiming.',
    }),
    sdk_real_trading_enabled: z.boolean(),
    trading_paused: z.boolean(),
    max_trades_per_day: z.number().int(),
    max_trades_per_day_limit: z.number().int(),
    trades_today: z.number().int(),
    daily_limit_resets_at: z.string(),
    sdk_max_trade_amount: z.number(),
    sdk_daily_limit: z.number(),
    sdk_daily_spent: z.number(),
    max_position_usd: z.number(),
    auto_risk_monitor_enabled: z.boolean(),
    default_stop_loss_pct: z.number().nullable(),
    default_take_profit_pct: z.number().nullable(),
    solana_wallet_address: z.string().nullable(),
    clawdbot_webhook_url: z.string().nullable(),
    clawdbot_chat_id: z.string().nullable(),
    clawdbot_channel: z.string().nullable(),
    clawdbot_webhook_active: z
      .boolean()
      .nullable()
      .meta({
        description:
          'Whether the chat bridge is delivered to (null without one). Like a webhook, it is switched off after 10 failed deliveries ' +
          'in a row (no 2xx answer); setting `clawdbot_webhook_url` again turns it back on with a clean record and a new secret.',
      }),
    clawdbot_webhook_consecutive_failures: z
      .number()
      .meta({ description: 'Failed deliveries to the bridge since its last success.' }),
    clawdbot_webhook_last_delivery_at: z
      .string()
      .nullable()
      .meta({ description: 'When the bridge last answered 2xx (ISO).' }),
    clawdbot_webhook_last_error: z
      .string()
      .nullable()
      .meta({ description: 'Why the last delivery to the bridge failed; null after a success.' }),
    clawdbot_webhook_fix: z
      .string()
      .nullable()
      .meta({ description: 'When the bridge is switched off: how to turn it back on.' }),
    clawdbot_webhook_secret: z.string().optional().meta({
      description:
        'Only in the answer of the update that set clawdbot_webhook_url: the HMAC secret its deliveries are signed with.',
    }),
    ...WalletFieldsSchema.shape,
    has_legacy_wallet: z.boolean().meta({
      description:
        'You have a managed wallet (its key held by this service) while a linked external wallet is in use: it may still hold funds, and takes over again if the external one is unlinked.',
    }),
    polymarket_usdc_balance: z.number().nullable().meta({
      description:
        'pUSD in your Polymarket wallet (your deposit wallet when you trade through one, signature type 3), read from Polygon and reused for WALLET_CASH_CACHE_SECONDS; null without a wallet or when it cannot be read.',
    }),
    polymarket_balance_checked_at: z
      .string()
      .nullable()
      .optional()
      .meta({ description: 'When `polymarket_usdc_balance` was read (ISO).' }),
    polymarket_allowances_set: z.boolean().meta({
      description:
        'Every approval the official client sets (its `set_approvals()`, or `activate_polymarket_dw()` for a deposit wallet) is on chain for the wallet that trades: ' +
        'your deposit wallet when you trade through one (signature type 3), else your linked or managed wallet; false without a wallet.',
    }),
    kalshi_usdc_balance: z.number().nullable().meta({
      description: 'USDC in your registered Solana wallet; null without one or when it cannot be read.',
    }),
    kalshi_balance_checked_at: z
      .string()
      .nullable()
      .optional()
      .meta({ description: 'When `kalshi_usdc_balance` was read (ISO).' }),
    balance_warnings: z
      .array(z.string())
      .optional()
      .meta({ description: 'Why a balance is stale or unknown (a chain that could not be read).' }),
    warning: z.string().optional(),
  })
  .meta({ id: 'TradingSettings' });
