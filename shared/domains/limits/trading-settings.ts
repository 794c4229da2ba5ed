import type { InfraDeps } from '../../infra/infra-deps.js';
import type { SettingsCache } from './settings-cache.js';
import { randomBytes } from 'node:crypto';
import { AppError, invalidField } from '../../infra/errors.js';
import { secretBox } from '../../infra/secrets/master-key.js';
import { isDuplicateKey } from '../refusal.js';
import type { Models } from '../models.js';
import { hasLegacyWallet, walletFieldsOf } from '../wallets/wallet-view.js';
import { readWallet } from '../wallets/wallet-store.js';
import type { WalletRegistrations } from '../venues/venue-wallets.js';
import { fromMicro, toMicro } from '../money.js';
import { dailyUsage, nextUtcMidnight } from './counters.js';
import type { TradingSettingsUpdate } from './settings.schemas.js';
import type { SettingsOwner } from '../users/settings-owner.js';
import {
  clawdbotHealthReset,
  clawdbotSecretContext,
  DEFAULT_TRADING_SETTINGS,
  isPaused,
  type TradingSettings,
} from './trading-settings.model.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type TradingSettingsDeps = Pick<InfraDeps, 'env' | 'redis' | 'invalidation' | 'clock'> & {
  models: Models;
  caches: SettingsCache;
};

/** What an update uses besides: the venues' check of a wallet it registers. */
export type UpdateSettingsDeps = TradingSettingsDeps & { walletRegistrations: WalletRegistrations };

const SETTING_KEYS = Object.keys(DEFAULT_TRADING_SETTINGS) as (keyof TradingSettings)[];

export async function readSettings(
  models: Models,
  owner: Pick<SettingsOwner, 'key'>,
): Promise<TradingSettings> {
  return (await readRevision(models, owner)).settings;
}

/** The stored settings over the defaults, with the revision an update must still find to write. */
async function readRevision(models: Models, owner: Pick<SettingsOwner, 'key'>) {
  const stored = await models.TradingSettings.findById(owner.key).lean();
  const settings = { ...DEFAULT_TRADING_SETTINGS };
  for (const key of SETTING_KEYS) {
    if (stored?.[key] !== undefined) (settings as Record<string, unknown>)[key] = stored[key];
  }
  return { settings, revision: stored?.revision };
}

/**
 * The owner's settings from this process's cache: every change (updateSettings) drops them on every
 * process at once (the worker's second look at the kill switch uses it too: a pause reaches every
 * process within milliseconds). Decisions that must see the stored state (an update's own rules)
 * use readSettings.
 */
export const currentSettings = (
  deps: Pick<TradingSettingsDeps, 'models' | 'caches'>,
  owner: Pick<SettingsOwner, 'key'>,
) =>
  deps.caches.settings.getOrLoad(owner.key, async () =>
    Object.freeze(await readSettings(deps.models, owner)),
  );

/** Real trading needs a human: an unclaimed agent reads it back false whatever it stored. */
export const realTradingEnabled = (owner: SettingsOwner, settings: TradingSettings) =>
  owner.kind === 'user' && settings.sdkRealTradingEnabled;

/** The owner's daily buy limit: the setting, never above what the owner's tier allows now (after a downgrade). */
export const maxTradesPerDay = (deps: TradingSettingsDeps, owner: SettingsOwner, settings: TradingSettings) =>
  Math.min(settings.maxTradesPerDay, deps.env.TIER_MAX_TRADES_PER_DAY[owner.tier]);

/** The answer of every settings route: the owner's safeguards, today's usage, and the wallet fields clients read. */
export async function settingsView(
  deps: TradingSettingsDeps,
  owner: SettingsOwner,
  settings?: TradingSettings,
) {
  const s = settings ?? (await currentSettings(deps, owner));
  const now = deps.clock();
  const [usage, wallet] = await Promise.all([
    dailyUsage(deps.redis, deps.env.QUEUE_PREFIX, owner.key, now),
    owner.kind === 'user' ? readWallet(deps.models, owner.id) : null,
  ]);
  return {
    tier: owner.tier,
    settings_owner: owner.kind,
    sdk_real_trading_enabled: realTradingEnabled(owner, s),
    trading_paused: isPaused(s),
    paused_by: s.pausedByUser ? 'user' : s.pausedByAgent ? 'agent' : null,
    max_trades_per_day: maxTradesPerDay(deps, owner, s),
    max_trades_per_day_limit: deps.env.TIER_MAX_TRADES_PER_DAY[owner.tier],
    trades_today: usage.trades,
    daily_limit_resets_at: nextUtcMidnight(now).toISOString(),
    sdk_max_trade_amount: fromMicro(s.sdkMaxTradeMicro),
    sdk_daily_limit: fromMicro(s.sdkDailyLimitMicro),
    sdk_daily_spent: fromMicro(usage.spentMicro),
    max_position_usd: fromMicro(s.maxPositionMicro),
    auto_risk_monitor_enabled: s.autoRiskMonitorEnabled,
    default_stop_loss_pct: s.defaultStopLossPct,
    default_take_profit_pct: s.defaultTakeProfitPct,
    solana_wallet_address: s.solanaWalletAddress,
    clawdbot_webhook_url: s.clawdbotWebhookUrl,
    clawdbot_chat_id: s.clawdbotChatId,
    clawdbot_channel: s.clawdbotChannel,
    ...bridgeHealthView(s),
    // The owner's Polymarket wallet: clients read these to decide whether to link one.
    ...walletFieldsOf(wallet),
    has_legacy_wallet: hasLegacyWallet(wallet),
    // Defaults for an owner without venue wallets: the settings routes lay the wallets' cash and
    // approvals read from the chains over them (trading/wallet-cash.ts walletCashSettings).
    polymarket_usdc_balance: null,
    polymarket_allowances_set: false,
    kalshi_usdc_balance: null,
  };
}

/** The chat bridge's delivery health, as a webhook's is shown (null fields without a bridge). */
function bridgeHealthView(s: TradingSettings) {
  const on = s.clawdbotWebhookUrl === null ? null : s.clawdbotActive;
  return {
    clawdbot_webhook_active: on,
    clawdbot_webhook_consecutive_failures: s.clawdbotConsecutiveFailures,
    clawdbot_webhook_last_delivery_at: s.clawdbotLastDeliveryAt?.toISOString() ?? null,
    clawdbot_webhook_last_error: s.clawdbotLastError,
    clawdbot_webhook_fix:
      on === false
        ? `Switched off after ${s.clawdbotConsecutiveFailures} failed deliveries in a row: fix the receiver, then set clawdbot_webhook_url again ` +
          '(PATCH /api/sdk/settings) to turn it back on; that answers a new signing secret.'
        : null,
  };
}

const DIRECT = {
  auto_risk_monitor_enabled: 'autoRiskMonitorEnabled',
  default_stop_loss_pct: 'defaultStopLossPct',
  default_take_profit_pct: 'defaultTakeProfitPct',
  sdk_real_trading_enabled: 'sdkRealTradingEnabled',
  max_trades_per_day: 'maxTradesPerDay',
  clawdbot_chat_id: 'clawdbotChatId',
  clawdbot_channel: 'clawdbotChannel',
} as const satisfies Partial<Record<keyof TradingSettingsUpdate, keyof TradingSettings>>;

const IN_DOLLARS = {
  sdk_max_trade_amount: 'sdkMaxTradeMicro',
  sdk_daily_limit: 'sdkDailyLimitMicro',
  max_position_usd: 'maxPositionMicro',
} as const satisfies Partial<Record<keyof TradingSettingsUpdate, keyof TradingSettings>>;

/**
 * Who is changing the settings. An agent key acts on its owner's settings, within limits: a
 * released agent changes nothing, and only the human lifts a pause the human set.
 */
export type SettingsActor = { kind: 'user' } | { kind: 'agent'; suspended: boolean; claimUrl: string | null };

const pausedByOwner = () =>
  new AppError(
    403,
    'paused_by_owner',
    'Trading was paused by your human; an agent key cannot resume it',
    'Ask your human to resume with PATCH /api/sdk/user/settings {"trading_paused": false} and their user token.',
  );

/** Dollars as sent, to whole cents, in micro-units. */
const centsToMicro = (dollars: number) => toMicro(Math.round(dollars * 100) / 100);

/**
 * Whether an update widens or removes the owner's default stop-loss: a wider stop lets a position
 * lose more before the automatic exit, and null turns it off (take-profit protects nothing).
 */
function stopLossWidened(pct: number | null | undefined, now: number | null): boolean {
  if (pct === undefined || now === null) return false;
  return pct === null || pct > now;
}

/**
 * The safeguards an update would relax: raise a money cap, turn real trading back on, or switch off
 * or widen the automatic stop-loss every buy gets.
 */
function loosenedBy(input: TradingSettingsUpdate, current: TradingSettings): string[] {
  const raised = (value: number | undefined, now: number) => value !== undefined && value > now;
  const cents = (v: number | undefined) => (v === undefined ? undefined : centsToMicro(v));
  return [
    input.auto_risk_monitor_enabled === false &&
      current.autoRiskMonitorEnabled &&
      'auto_risk_monitor_enabled',
    stopLossWidened(input.default_stop_loss_pct, current.defaultStopLossPct) && 'default_stop_loss_pct',
    raised(input.max_trades_per_day, current.maxTradesPerDay) && 'max_trades_per_day',
    raised(cents(input.sdk_max_trade_amount), current.sdkMaxTradeMicro) && 'sdk_max_trade_amount',
    raised(cents(input.sdk_daily_limit), current.sdkDailyLimitMicro) && 'sdk_daily_limit',
    raised(cents(input.max_position_usd), current.maxPositionMicro) && 'max_position_usd',
    input.sdk_real_trading_enabled === true && !current.sdkRealTradingEnabled && 'sdk_real_trading_enabled',
  ].filter((name): name is string => typeof name === 'string');
}

/** The Solana wallet an update registers (null clears it), under either of its names. */
const solanaWalletIn = (input: TradingSettingsUpdate) =>
  input.bot_solana_wallet !== undefined ? input.bot_solana_wallet : input.solana_wallet_address;

/** The stored changes an update asks for, after the rules that depend on who the owner and the actor are. */
function changesFor(
  deps: TradingSettingsDeps,
  owner: SettingsOwner,
  input: TradingSettingsUpdate,
  actor: SettingsActor,
  current: TradingSettings,
  bridge: Partial<TradingSettings>,
): Partial<TradingSettings> {
  if (actor.kind === 'agent' && actor.suspended)
    throw new AppError(
      403,
      'agent_suspended',
      'A released agent cannot change settings',
      'Your human can reactivate it with POST /api/sdk/agents/{agent_id}/reactivate.',
    );
  if (actor.kind === 'agent' && owner.kind === 'user') {
    const loosened = loosenedBy(input, current);
    if (loosened.length)
      throw new AppError(
        403,
        'owner_setting',
        `Only your human can loosen ${loosened.join(', ')}`,
        'An agent key may only tighten its owner’s safeguards; ask your human to make this change (PATCH /api/sdk/user/settings with their user token).',
      );
  }
  const set: Record<string, unknown> = {};
  for (const [field, key] of Object.entries(DIRECT)) {
    const value = input[field as keyof typeof DIRECT];
    if (value !== undefined) set[key] = value;
  }
  if (input.trading_paused !== undefined) {
    if (actor.kind === 'user') {
      set.pausedByUser = input.trading_paused;
      if (!input.trading_paused) set.pausedByAgent = false; // the human's resume lifts every pause
    } else {
      if (!input.trading_paused && current.pausedByUser) throw pausedByOwner();
      set.pausedByAgent = input.trading_paused;
    }
  }
  for (const [field, key] of Object.entries(IN_DOLLARS)) {
    const value = input[field as keyof typeof IN_DOLLARS];
    if (value !== undefined) set[key] = centsToMicro(value);
  }
  const wallet = solanaWalletIn(input);
  if (
    input.bot_solana_wallet !== undefined &&
    input.solana_wallet_address !== undefined &&
    input.bot_solana_wallet !== input.solana_wallet_address
  )
    throw invalidField(
      'solana_wallet_address',
      'differs from bot_solana_wallet',
      input.solana_wallet_address,
      'Send the wallet once, as bot_solana_wallet or solana_wallet_address.',
    );
  if (wallet !== undefined) set.solanaWalletAddress = wallet;
  Object.assign(set, bridge);

  const tierMax = deps.env.TIER_MAX_TRADES_PER_DAY[owner.tier];
  if (input.max_trades_per_day !== undefined && input.max_trades_per_day > tierMax)
    throw invalidField(
      'max_trades_per_day',
      `at most ${tierMax} on the ${owner.tier} tier`,
      input.max_trades_per_day,
      `Choose a value from 1 to ${tierMax}, or upgrade your tier for a higher ceiling.`,
    );
  if (input.sdk_real_trading_enabled === true && owner.kind === 'agent')
    throw new AppError(
      403,
      'agent_not_claimed',
      'Agent must be claimed before real trading can be enabled',
      'Ask your human to claim this agent at claim_url; real trading is enabled by the claim.',
      { body: { claim_url: actor.kind === 'agent' ? actor.claimUrl : null } },
    );
  if (!Object.keys(set).length)
    throw invalidField(
      'body',
      'no setting given',
      input,
      `Send at least one of: ${[...Object.keys(DIRECT), ...Object.keys(IN_DOLLARS), 'bot_solana_wallet', 'clawdbot_webhook_url'].join(', ')}.`,
    );
  return set as Partial<TradingSettings>;
}

const SETTINGS_WRITE_ATTEMPTS = 5;

/**
 * Writes the changes `decide` makes of the stored settings, only if nothing changed them since they
 * were read: a compare-and-set on the revision (a first write finds no document, or one written
 * before revisions, and a concurrent first write loses on the unique _id). A lost race decides again
 * on what won, so an agent key can never loosen what its human tightened in between.
 */
async function writeDecided(
  deps: TradingSettingsDeps,
  owner: SettingsOwner,
  decide: (current: TradingSettings) => Partial<TradingSettings>,
) {
  for (let attempt = 1; attempt <= SETTINGS_WRITE_ATTEMPTS; attempt++) {
    const { settings, revision } = await readRevision(deps.models, owner);
    const set = decide(settings);
    const unchangedSinceRead = revision === undefined ? { $exists: false } : revision;
    try {
      const written = await deps.models.TradingSettings.updateOne(
        { _id: owner.key, revision: unchangedSinceRead },
        { $set: set, $inc: { revision: 1 } },
        { upsert: true },
      );
      if (written.matchedCount + written.upsertedCount > 0) return;
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
  }
  throw new AppError(
    503,
    'settings_busy',
    'The settings kept changing while this update was decided',
    'Read the settings again (GET /api/sdk/settings) and retry in a moment.',
    { retryable: true, headers: { 'Retry-After': '1' } },
  );
}

/**
 * The chat bridge an update sets: a new URL gets a new signing secret (a receiver trusting the old
 * one must not take deliveries meant for another), null clears both. The URL must have passed the
 * SSRF guard already (webhooks/clawdbot.ts: the webhook rules live there, not in limits).
 */
function bridgeChange(deps: TradingSettingsDeps, owner: SettingsOwner, input: TradingSettingsUpdate) {
  const url = input.clawdbot_webhook_url;
  if (url === undefined) return { set: {}, secret: undefined };
  // Set or cleared, the bridge starts on with a clean record: setting the URL again is how its
  // owner turns back on a bridge switched off for failing (webhooks/delivery-health.ts).
  const reset = clawdbotHealthReset();
  if (url === null || url === '')
    return { set: { clawdbotWebhookUrl: null, clawdbotSecret: null, ...reset }, secret: undefined };
  const secret = randomBytes(32).toString('hex');
  const sealed = secretBox(deps.env).seal(secret, clawdbotSecretContext(owner.key));
  return { set: { clawdbotWebhookUrl: url, clawdbotSecret: sealed, ...reset }, secret };
}

/**
 * Applies a partial update for the owner (a user, or an unclaimed agent) and returns the new
 * settings. A `clawdbot_webhook_url` in `input` must already be checked (checkedBridgeUrl).
 */
export async function updateSettings(
  deps: UpdateSettingsDeps,
  owner: SettingsOwner,
  input: TradingSettingsUpdate,
  actor: SettingsActor,
) {
  const wallet = solanaWalletIn(input);
  if (wallet) await deps.walletRegistrations.check(owner.key, wallet);
  const bridge = bridgeChange(deps, owner, input);
  await writeDecided(deps, owner, (current) => changesFor(deps, owner, input, actor, current, bridge.set));
  await deps.invalidation.publish('settings', owner.key);
  const view = {
    ...(await settingsView(deps, owner)),
    ...(bridge.secret ? { clawdbot_webhook_secret: bridge.secret } : {}),
  };
  const ignored = (['user_email', 'dynamic_user_id'] as const).filter((k) => input[k] !== undefined);
  return ignored.length
    ? { ...view, warning: `${ignored.join(' and ')} ignored: identity comes from your credentials.` }
    : view;
}
