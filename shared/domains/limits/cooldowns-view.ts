import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';
import type { SettingsCache } from './settings-cache.js';
import type { TierCache } from '../users/tier-cache.js';
import type { AgentRecord } from '../agents/agent.model.js';
import { fromMicro } from '../money.js';
import { activeCooldowns, dailyUsage, nextUtcMidnight, secondsUntil } from './counters.js';
import { agentOwner } from '../users/settings-owner.js';
import { currentSettings, maxTradesPerDay } from './trading-settings.js';
import { isPaused } from './trading-settings.model.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type CooldownsViewDeps = Pick<InfraDeps, 'env' | 'redis' | 'invalidation' | 'clock'> & {
  models: Models;
  caches: SettingsCache & TierCache;
};

/**
 * `GET /api/sdk/agents/{agent_id}/cooldowns`: everything that would refuse the agent's next buy now —
 * per-market-side cooldowns (rate limit) and failed-trade cooldowns (failure) with their expiry, the
 * owner's daily counts, and the kill switch.
 */
export async function cooldownsView(deps: CooldownsViewDeps, agent: AgentRecord) {
  const now = deps.clock();
  const owner = await agentOwner(deps, agent);
  const [settings, cooldowns, usage] = await Promise.all([
    currentSettings(deps, owner),
    activeCooldowns(deps.redis, deps.env.QUEUE_PREFIX, owner.key, agent._id, now),
    dailyUsage(deps.redis, deps.env.QUEUE_PREFIX, owner.key, now),
  ]);
  const markets = cooldowns.length
    ? await deps.models.Market.find(
        { _id: { $in: [...new Set(cooldowns.map((c) => c.marketId))] } },
        { question: 1 },
      ).lean()
    : [];
  const question = new Map(markets.map((m) => [m._id, m.question]));
  const resetsAt = nextUtcMidnight(now);
  const maxTrades = maxTradesPerDay(deps, owner, settings);
  const dailyReached = usage.trades >= maxTrades;

  const entries = cooldowns.map((c) => ({
    type: c.kind === 'market' ? ('rate_limit' as const) : ('failure' as const),
    kind: c.kind === 'market' ? 'market_cooldown' : 'failed_trade_cooldown',
    venue: c.venue,
    market_id: c.marketId,
    question: question.get(c.marketId) ?? null,
    side: c.side,
    reason:
      c.kind === 'market'
        ? `One ${c.side.toUpperCase()} buy per market every ${deps.env.SIM_COOLDOWN_SECONDS} s on sim (free tier).`
        : `A ${c.side.toUpperCase()} buy on this market failed; new ones wait ${deps.env.FAILED_TRADE_COOLDOWN_SECONDS} s.`,
    expires_at: c.expiresAt.toISOString() as string | null,
    seconds_remaining: secondsUntil(c.expiresAt, now) as number | null,
  }));
  // Account-wide blocks: no market or side, and the kill switch has no expiry.
  const accountEntry = (
    type: 'rate_limit' | 'kill_switch',
    kind: string,
    reason: string,
    until: Date | null,
  ) => ({
    type,
    kind,
    venue: null,
    market_id: null,
    question: null,
    side: null,
    reason,
    expires_at: until ? until.toISOString() : null,
    seconds_remaining: until ? secondsUntil(until, now) : null,
  });
  const account = [];
  if (dailyReached)
    account.push(
      accountEntry(
        'rate_limit',
        'daily_limit_reached',
        `Daily limit reached: ${maxTrades} trades (resets at midnight UTC).`,
        resetsAt,
      ),
    );
  if (usage.spentMicro >= settings.sdkDailyLimitMicro)
    account.push(
      accountEntry(
        'rate_limit',
        'daily_spend_limit_reached',
        `Daily limit reached: $${fromMicro(settings.sdkDailyLimitMicro).toFixed(2)} spent on real venues (resets at midnight UTC).`,
        resetsAt,
      ),
    );
  if (isPaused(settings))
    account.push(
      accountEntry(
        'kill_switch',
        'trading_paused',
        'trading_paused is on: every trade is refused until it is set false.',
        null,
      ),
    );

  return {
    agent_id: agent._id,
    checked_at: now.toISOString(),
    cooldowns: [...account, ...entries],
    daily: {
      trades_today: usage.trades,
      max_trades_per_day: maxTrades,
      remaining: Math.max(0, maxTrades - usage.trades),
      limit_reached: dailyReached,
      spent_today: fromMicro(usage.spentMicro),
      daily_limit: fromMicro(settings.sdkDailyLimitMicro),
      resets_at: resetsAt.toISOString(),
    },
    trading_paused: isPaused(settings),
  };
}
