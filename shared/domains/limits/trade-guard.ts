import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';
import type { SettingsCache } from './settings-cache.js';
import type { TierCache } from '../users/tier-cache.js';
import { AppError, invalidField, outage } from '../../infra/errors.js';
import type { Refusal } from '../refusal.js';
import { agentSuspended } from '../agents/agent-refusals.js';
import { isReleased, type AgentRecord } from '../agents/agent.model.js';
import { fromMicro } from '../money.js';
import {
  admitBuy,
  nextUtcMidnight,
  releaseAdmission,
  secondsUntil,
  type CooldownTarget,
} from './counters.js';
import { agentOwner, type SettingsOwner } from '../users/settings-owner.js';
import { currentSettings, maxTradesPerDay, realTradingEnabled } from './trading-settings.js';
import { isPaused, type TradingSettings } from './trading-settings.model.js';
import {
  automatonRefusal,
  automatonStanding,
  budgetReservation,
  type AutomatonStanding,
} from './automaton-budget.js';
import type { Admission } from '../trading/trade.model.js';
import type { VenueId } from '../venues/venue-id.js';
import { isPaperMoney } from '../venues/venue-conventions.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type TradeGuardDeps = Pick<InfraDeps, 'env' | 'redis' | 'invalidation' | 'clock'> & {
  models: Models;
  caches: SettingsCache & TierCache;
};

/**
 * The account safeguards a live trade passes before it is queued (client-contract §4.5): the kill
 * switch, the real-trading switch and per-trade cap, then — buys only, so an agent can always get
 * out of a position — cooldowns and the daily caps. Dry runs skip all of them (spec §4.2).
 */
export interface TradeGuard {
  /** Its human released the agent: it trades nowhere, and acts for no account (agent.model.ts actingUserOf). */
  released: boolean;
  owner: SettingsOwner;
  settings: TradingSettings;
  /** The agent's automaton (its halt and budget), null without one. */
  automaton: AutomatonStanding | null;
}

export interface GuardedTrade {
  venue: VenueId;
  marketId: string;
  side: 'yes' | 'no';
  action: 'buy' | 'sell';
  amountMicro: number;
}

/** The guarded fields of a trade on `venue`. */
export const guardedTrade = (t: Omit<GuardedTrade, 'venue'>, venue: VenueId): GuardedTrade => ({
  venue,
  marketId: t.marketId,
  side: t.side,
  action: t.action,
  amountMicro: t.amountMicro,
});

const SETTINGS_FIX = 'PATCH /api/sdk/user/settings';
const usd = (micro: number) => `$${fromMicro(micro).toFixed(2)}`;

/** 429 with the moment it lifts, in the body and as Retry-After. */
function blockedUntil(code: string, message: string, fix: string, until: Date, now: Date, body = {}) {
  const retryAfter = Math.max(1, secondsUntil(until, now)); // Retry-After 0 would invite a hot loop
  return new AppError(429, code, message, fix, {
    retryable: true,
    headers: { 'Retry-After': String(retryAfter) },
    body: { ...body, expires_at: until.toISOString(), retry_after_seconds: retryAfter },
  });
}

/** The owner and settings a trade is guarded by, from the process's caches (no database round trip when warm). */
export async function loadGuard(deps: TradeGuardDeps, agent: AgentRecord): Promise<TradeGuard> {
  const [owner, automaton] = await Promise.all([agentOwner(deps, agent), automatonStanding(deps, agent._id)]);
  return { released: isReleased(agent), owner, settings: await currentSettings(deps, owner), automaton };
}

/** The kill switch's refusal, when a trade is accepted and again when a worker first takes it. */
export const TRADING_PAUSED: Refusal = {
  error: 'Trading is paused for this account (kill switch trading_paused is on).',
  errorCode: 'trading_paused',
  retryable: false,
  hint: `Your human resumes trading with ${SETTINGS_FIX} {"trading_paused": false}.`,
  category: 'limit',
};

/**
 * Checks that take nothing, so a refusal leaves no trace. A released agent, the kill switch, a
 * halted automaton or its spent budget (automaton-budget.ts), and the real-trading switch are
 * business refusals (200, `success: false`: client-contract §1.5); a buy above the per-trade cap is
 * a 422 on `amount`. A released agent is refused first, on every venue: on a real one its claim
 * would otherwise still reach its former owner's wallet.
 */
export function checkStanding(
  { released, owner, settings, automaton }: TradeGuard,
  t: GuardedTrade,
): Refusal | null {
  if (released) return agentSuspended();
  if (isPaused(settings)) return TRADING_PAUSED;
  const byAutomaton = automatonRefusal(automaton, t);
  if (byAutomaton) return byAutomaton;
  if (isPaperMoney(t.venue)) return null;
  if (!realTradingEnabled(owner, settings))
    return {
      error: 'Real trading is turned off in settings (sdk_real_trading_enabled is false).',
      errorCode: 'real_trading_disabled',
      retryable: false,
      hint: 'Your human turns it on with PATCH /api/sdk/settings {"sdk_real_trading_enabled": true}; meanwhile trade on venue "sim".',
      category: 'limit',
    };
  if (t.action === 'buy' && t.amountMicro > settings.sdkMaxTradeMicro)
    throw invalidField(
      'amount',
      `${usd(t.amountMicro)} is above the per-trade limit of ${usd(settings.sdkMaxTradeMicro)} (sdk_max_trade_amount)`,
      fromMicro(t.amountMicro),
      `Send at most ${usd(settings.sdkMaxTradeMicro)}, or ask your human to raise sdk_max_trade_amount.`,
    );
  return null;
}

/**
 * The account safeguards of one trade, in their order: its standing (`checkStanding`), then its
 * admission (`admitTrade`), unless the caller already holds it (`admitted`: an atomic batch's leg).
 * A business refusal is returned, taking nothing; the 422s and 429s are thrown as there.
 */
export async function guardTrade(
  deps: TradeGuardDeps,
  guard: TradeGuard,
  agentId: string,
  t: GuardedTrade,
  admitted?: Admission | null,
): Promise<{ refusal: Refusal } | { admission: Admission | null }> {
  const standing = checkStanding(guard, t);
  if (standing) return { refusal: standing };
  const admitting = admitted !== undefined ? admitted : await admitTrade(deps, guard, agentId, t);
  if (admitting && 'errorCode' in admitting) return { refusal: admitting };
  return { admission: admitting };
}

/**
 * Buys: checks cooldowns, daily caps and the automaton's budget and counts the buy, atomically (so
 * buys sent together cannot pass on the same remainder). Sells pass (null). The budget's refusal is
 * a business refusal, returned; the others are 429s, thrown.
 */
export async function admitTrade(
  deps: TradeGuardDeps,
  guard: TradeGuard,
  agentId: string,
  t: GuardedTrade,
): Promise<Admission | Refusal | null> {
  if (t.action !== 'buy') return null;
  const { owner, settings } = guard;
  const now = deps.clock();
  const real = !isPaperMoney(t.venue);
  const maxTrades = maxTradesPerDay(deps, owner, settings);
  const cooldownMs = !real && owner.tier === 'free' ? deps.env.SIM_COOLDOWN_SECONDS * 1000 : 0;
  const verdict = await admitBuy(deps.redis, deps.env.QUEUE_PREFIX, {
    agentId,
    venue: t.venue,
    marketId: t.marketId,
    side: t.side,
    ownerKey: owner.key,
    now,
    marketCooldownMs: cooldownMs,
    maxTradesPerDay: maxTrades,
    spendMicro: real ? t.amountMicro : 0,
    dailyLimitMicro: real ? settings.sdkDailyLimitMicro : null,
    budget: budgetReservation(deps.env.QUEUE_PREFIX, owner.key, agentId, guard.automaton, t),
  }).catch((err: unknown) => {
    // Limits that cannot be checked are not skipped: the buy is refused (sells never need them).
    throw outage(
      'limits_unavailable',
      'Trading limits cannot be checked right now; the trade was not placed',
      'Retry in a few seconds (see Retry-After).',
      err,
    );
  });
  if (verdict.ok) return verdict.admission;
  const side = t.side.toUpperCase();
  const where = { market_id: t.marketId, side: t.side, venue: t.venue };
  switch (verdict.reason) {
    case 'automaton_budget':
      // Another buy took the remainder since the standing was read: refused as checkStanding would.
      return automatonRefusal({ ...guard.automaton!, committedMicro: verdict.committedMicro }, t)!;
    case 'market':
      throw blockedUntil(
        'market_cooldown',
        `Cooldown: one ${side} buy per market every ${deps.env.SIM_COOLDOWN_SECONDS} s on sim for the free tier`,
        'Wait until expires_at, or trade another market or side (GET /api/sdk/agents/{agent_id}/cooldowns lists them).',
        verdict.expiresAt,
        now,
        where,
      );
    case 'failed_trade':
      throw blockedUntil(
        'failed_trade_cooldown',
        `Cooldown: a ${side} buy on this market failed recently, so new ${side} buys on it wait until ${verdict.expiresAt.toISOString()}`,
        'See why it failed in GET /api/sdk/trades?include_failed=true, then trade another market or side, or wait until expires_at.',
        verdict.expiresAt,
        now,
        where,
      );
    case 'daily_trades':
      throw blockedUntil(
        'daily_limit_reached',
        `Daily limit reached: ${maxTrades} trades`,
        `The count resets at midnight UTC. Sells are not counted. Raise max_trades_per_day with ${SETTINGS_FIX} (at most ${deps.env.TIER_MAX_TRADES_PER_DAY[owner.tier]} on the ${owner.tier} tier).`,
        nextUtcMidnight(now),
        now,
        { limit: maxTrades, used: verdict.usedTrades },
      );
    case 'daily_spend':
      throw blockedUntil(
        'daily_limit_reached',
        `Daily limit reached: ${usd(settings.sdkDailyLimitMicro)}`,
        `${usd(verdict.usedSpendMicro)} is already spent today on real venues; the sum resets at midnight UTC. Raise sdk_daily_limit with PATCH /api/sdk/settings.`,
        nextUtcMidnight(now),
        now,
        { limit: fromMicro(settings.sdkDailyLimitMicro), used: fromMicro(verdict.usedSpendMicro) },
      );
  }
}

/**
 * A buy that will not fill gives back its count and market cooldown; with `failedAt`, its execution failed and the
 * market side closes to this agent's buys for FAILED_TRADE_COOLDOWN_SECONDS.
 */
export async function releaseTrade(
  deps: TradeGuardDeps,
  admission: Admission,
  target: CooldownTarget,
  failedAt?: Date,
): Promise<void> {
  const cooldownMs = deps.env.FAILED_TRADE_COOLDOWN_SECONDS * 1000;
  const now = failedAt ?? deps.clock();
  await releaseAdmission(
    deps.redis,
    deps.env.QUEUE_PREFIX,
    target.agentId,
    admission,
    now,
    failedAt && cooldownMs > 0 ? { target, until: new Date(now.getTime() + cooldownMs) } : undefined,
  );
}

/**
 * Refusals that come from the market itself (price beyond the limit, market closed, venue error):
 * retrying at once would fail again, so these close the side for a while. Refusals about the agent
 * (balance, shares, suspended) do not: the agent fixes those itself.
 */
const FAILED_TRADE_CATEGORIES = new Set(['price', 'market', 'venue']);

/** The fields of an ended trade that decide what its admission gives back. */
export interface EndedTrade extends CooldownTarget {
  admission: Admission | null;
  admissionSettled?: boolean;
  status: string;
  failureCategory: string | null;
  finishedAt: Date | null;
}

/**
 * What a buy that ended without filling (`rejected` by the worker, or `failed` before it ran) gives
 * back: its admission, and with `failedAt` the side closes for a while (see releaseTrade). Null when
 * nothing is owed: no admission, already given back, or not ended without a fill. The caller
 * releases it and records that it did (trading/trade-lifecycle.ts settleAdmission).
 */
export function admissionToGiveBack(
  trade: EndedTrade,
  now: () => Date,
): { admission: Admission; target: CooldownTarget; failedAt: Date | undefined } | null {
  if (!trade.admission || trade.admissionSettled) return null;
  if (trade.status !== 'rejected' && trade.status !== 'failed') return null;
  const failedAtMarket =
    trade.status === 'rejected' && FAILED_TRADE_CATEGORIES.has(trade.failureCategory ?? '');
  return {
    admission: trade.admission,
    target: { agentId: trade.agentId, venue: trade.venue, marketId: trade.marketId, side: trade.side },
    failedAt: failedAtMarket ? (trade.finishedAt ?? now()) : undefined,
  };
}
