import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { redisScript } from '../../infra/redis-script.js';
import type { Admission } from '../trading/trade.model.js';
import type { VenueId } from '../venues/venue-id.js';

/**
 * The Redis side of the trading safeguards: per-agent cooldowns (a sorted set of
 * `kind|venue|market|side` scored by expiry) and per-owner daily counters (a hash per UTC day with
 * `trades` and `spent`). A buy is admitted by one script that checks everything and counts it, so
 * concurrent buys can never pass a limit together; a buy that then does not fill gives its count
 * back exactly once.
 */

export type CooldownKind = 'market' | 'failed_trade';

export interface CooldownTarget {
  agentId: string;
  venue: VenueId;
  marketId: string;
  side: 'yes' | 'no';
}

export interface Cooldown extends Omit<CooldownTarget, 'agentId'> {
  kind: CooldownKind;
  expiresAt: Date;
}

export interface BuyAdmissionRequest extends CooldownTarget {
  ownerKey: string;
  now: Date;
  /** Opens a `market` cooldown of this length on the side (0: none). */
  marketCooldownMs: number;
  maxTradesPerDay: number;
  /** Counted against `dailyLimitMicro` (real venues); 0 on sim. */
  spendMicro: number;
  dailyLimitMicro: number | null;
}

export type AdmissionVerdict =
  | { ok: true; admission: Admission }
  | { ok: false; reason: CooldownKind; expiresAt: Date }
  | { ok: false; reason: 'daily_trades' | 'daily_spend'; usedTrades: number; usedSpendMicro: number };

export const DAY_TTL_SECONDS = 2 * 24 * 3600;

export const utcDay = (now: Date) => now.toISOString().slice(0, 10);
/** Whole seconds from `now` until `until`, never negative. */
export const secondsUntil = (until: Date, now: Date) =>
  Math.max(0, Math.ceil((until.getTime() - now.getTime()) / 1000));
export const nextUtcMidnight = (now: Date) =>
  new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));

const memberOf = (kind: CooldownKind, t: Omit<CooldownTarget, 'agentId'>) =>
  `${kind}|${t.venue}|${t.marketId}|${t.side}`;

/** Where the safeguards live in Redis (also read by reconcile-counters.ts). */
export const limitKeys = (prefix: string) => ({
  cooldowns: (agentId: string) => `${prefix}:limits:cooldowns:${agentId}`,
  day: (ownerKey: string, day: string) => `${prefix}:limits:day:${ownerKey}:${day}`,
  released: (admissionId: string) => `${prefix}:limits:released:${admissionId}`,
});

// KEYS: cooldowns, day. ARGV: now ms, failed member, market member, market cooldown ms,
// max trades, spend, daily limit (-1: none), day ttl s.
const ADMIT = redisScript(`
local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local failedUntil = redis.call('ZSCORE', KEYS[1], ARGV[2])
if failedUntil then return {'failed_trade', failedUntil} end
local marketUntil = redis.call('ZSCORE', KEYS[1], ARGV[3])
if marketUntil then return {'market', marketUntil} end
local trades = tonumber(redis.call('HGET', KEYS[2], 'trades') or '0')
local spent = tonumber(redis.call('HGET', KEYS[2], 'spent') or '0')
if trades >= tonumber(ARGV[5]) then return {'daily_trades', tostring(trades), tostring(spent)} end
local limit = tonumber(ARGV[7])
if limit >= 0 and spent + tonumber(ARGV[6]) > limit then
  return {'daily_spend', tostring(trades), tostring(spent)}
end
redis.call('HINCRBY', KEYS[2], 'trades', 1)
redis.call('HINCRBY', KEYS[2], 'spent', ARGV[6])
redis.call('EXPIRE', KEYS[2], ARGV[8])
local cooldown = tonumber(ARGV[4])
if cooldown > 0 then
  redis.call('ZADD', KEYS[1], now + cooldown, ARGV[3])
  if redis.call('PTTL', KEYS[1]) < cooldown then redis.call('PEXPIRE', KEYS[1], cooldown) end
end
return {'ok'}
`);

// KEYS: released marker, day, cooldowns. ARGV: spend, failed member ('' for none), failed until ms,
// now ms, marker ttl s, market cooldown member to close ('' for none) and its expiry ms.
const RELEASE = redisScript(`
if not redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[5]) then return 0 end
if redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('HINCRBY', KEYS[2], 'trades', -1)
  redis.call('HINCRBY', KEYS[2], 'spent', 0 - tonumber(ARGV[1])) -- never '-0', which HINCRBY refuses
end
-- Only the cooldown this buy opened: once it expired, a later buy may have opened its own.
if ARGV[6] ~= '' and tonumber(redis.call('ZSCORE', KEYS[3], ARGV[6]) or '-1') == tonumber(ARGV[7]) then
  redis.call('ZREM', KEYS[3], ARGV[6])
end
if ARGV[2] ~= '' then
  local ms = tonumber(ARGV[3]) - tonumber(ARGV[4])
  -- GT: a longer cooldown already running is kept; a missing one is added.
  redis.call('ZADD', KEYS[3], 'GT', ARGV[3], ARGV[2])
  if redis.call('PTTL', KEYS[3]) < ms then redis.call('PEXPIRE', KEYS[3], ms) end
end
return 1
`);

/** Checks the buy against cooldowns and the owner's daily limits and, if it passes, counts it. */
export async function admitBuy(
  redis: Redis,
  prefix: string,
  req: BuyAdmissionRequest,
): Promise<AdmissionVerdict> {
  const keys = limitKeys(prefix);
  const day = utcDay(req.now);
  const reply = (await ADMIT(
    redis,
    [keys.cooldowns(req.agentId), keys.day(req.ownerKey, day)],
    [
      req.now.getTime(),
      memberOf('failed_trade', req),
      memberOf('market', req),
      req.marketCooldownMs,
      req.maxTradesPerDay,
      req.spendMicro,
      req.dailyLimitMicro ?? -1,
      DAY_TTL_SECONDS,
    ],
  )) as string[];
  const [verdict, a, b] = reply;
  if (verdict === 'ok')
    return {
      ok: true,
      admission: {
        id: randomUUID(),
        ownerKey: req.ownerKey,
        day,
        spendMicro: req.spendMicro,
        openedCooldown: req.marketCooldownMs > 0 ? memberOf('market', req) : null,
        openedCooldownUntil: req.now.getTime() + req.marketCooldownMs,
      },
    };
  if (verdict === 'failed_trade' || verdict === 'market')
    return { ok: false, reason: verdict, expiresAt: new Date(Number(a)) };
  return {
    ok: false,
    reason: verdict as 'daily_trades' | 'daily_spend',
    usedTrades: Number(a),
    usedSpendMicro: Number(b),
  };
}

/**
 * Gives back what a buy that did not fill took (its daily count and spend, and the market cooldown
 * it opened) at most once per admission; with `failed`, also closes that market side to the
 * agent's buys until the given time (the failed-trade cooldown).
 */
export async function releaseAdmission(
  redis: Redis,
  prefix: string,
  agentId: string,
  admission: Admission,
  now: Date,
  failed?: { target: CooldownTarget; until: Date },
): Promise<void> {
  const keys = limitKeys(prefix);
  await RELEASE(
    redis,
    [keys.released(admission.id), keys.day(admission.ownerKey, admission.day), keys.cooldowns(agentId)],
    [
      admission.spendMicro,
      failed ? memberOf('failed_trade', failed.target) : '',
      failed?.until.getTime() ?? 0,
      now.getTime(),
      DAY_TTL_SECONDS,
      admission.openedCooldown ?? '',
      admission.openedCooldownUntil ?? 0,
    ],
  );
}

/** The agent's cooldowns still running at `now`, soonest expiry first. */
export async function activeCooldowns(
  redis: Redis,
  prefix: string,
  agentId: string,
  now: Date,
): Promise<Cooldown[]> {
  const flat = await redis.zrangebyscore(
    limitKeys(prefix).cooldowns(agentId),
    `(${now.getTime()}`,
    '+inf',
    'WITHSCORES',
  );
  const cooldowns: Cooldown[] = [];
  for (let i = 0; i < flat.length; i += 2) {
    const [kind, venue, marketId, side] = flat[i]!.split('|') as [
      CooldownKind,
      VenueId,
      string,
      'yes' | 'no',
    ];
    cooldowns.push({ kind, venue, marketId, side, expiresAt: new Date(Number(flat[i + 1])) });
  }
  return cooldowns;
}

/** Buys counted today (UTC) for the owner, and their real-venue spend. */
export async function dailyUsage(redis: Redis, prefix: string, ownerKey: string, now: Date) {
  const [trades, spent] = await redis.hmget(limitKeys(prefix).day(ownerKey, utcDay(now)), 'trades', 'spent');
  return { trades: Number(trades ?? 0), spentMicro: Number(spent ?? 0) };
}
