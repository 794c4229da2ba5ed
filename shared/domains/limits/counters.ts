import { randomUUID } from 'node:crypto';
import { isClusterClient, scanKeys, type RedisClient } from '../../infra/redis.js';
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
  /** The agent's automaton budget this buy is reserved against (automaton-budget.ts), if any. */
  budget?: BudgetReservation | null;
}

/**
 * A buy's reservation against its automaton's budget: the Redis counter of the automaton's run
 * (`key`), seeded from `recordedMicro` (what the database counts: filled buys since the start plus
 * queued ones) when Redis does not hold it, the budget and the buy's amount.
 */
export interface BudgetReservation {
  key: string;
  recordedMicro: number;
  budgetMicro: number;
  amountMicro: number;
}

export type AdmissionVerdict =
  | { ok: true; admission: Admission }
  | { ok: false; reason: CooldownKind; expiresAt: Date }
  | { ok: false; reason: 'daily_trades' | 'daily_spend'; usedTrades: number; usedSpendMicro: number }
  | { ok: false; reason: 'automaton_budget'; committedMicro: number };

/**
 * How long an automaton's budget counter outlives its last reservation. It only has to bridge the
 * moment between a buy's reservation and its trade being recorded (from then on the database counts
 * it); expiring after a quiet minute re-derives it from the database, which also drops what a
 * partial fill or a rolled-back match left over-counted.
 */
export const BUDGET_IDLE_TTL_SECONDS = 60;

export const DAY_TTL_SECONDS = 2 * 24 * 3600;

export const utcDay = (now: Date) => now.toISOString().slice(0, 10);
/** Whole seconds from `now` until `until`, never negative. */
export const secondsUntil = (until: Date, now: Date) =>
  Math.max(0, Math.ceil((until.getTime() - now.getTime()) / 1000));
export const nextUtcMidnight = (now: Date) =>
  new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));

const memberOf = (kind: CooldownKind, t: Omit<CooldownTarget, 'agentId'>) =>
  `${kind}|${t.venue}|${t.marketId}|${t.side}`;

/**
 * Where the safeguards live in Redis (also read by reconcile-counters.ts). Every key carries the
 * owner's settings key as its hash tag (`{user:<id>}` / `{agent:<id>}`): the ADMIT and RELEASE
 * scripts touch an agent's cooldowns, its owner's day counter, the release marker and the agent's
 * automaton budget at once, and on a Redis Cluster the keys of one script must share a slot. The
 * owner is what they have in common (the day counter is shared by all of an owner's agents), and it
 * still spreads the keyspace over the cluster one owner per slot. The names are the same on a
 * single Redis. An agent claimed by a user changes owner, so the cooldowns still running under its
 * old owner (seconds to minutes) no longer apply to it.
 *
 * These names replaced untagged ones (`<prefix>:limits:day:<owner>:<day>` …): day counters are
 * carried over at start (migrateLegacyDayCounters); cooldowns, release markers and budget counters
 * are short-lived (minutes; a budget counter is re-derived from the database after a quiet minute)
 * and are left to expire.
 */
export const limitKeys = (prefix: string) => ({
  cooldowns: (ownerKey: string, agentId: string) => `${prefix}:limits:{${ownerKey}}:cooldowns:${agentId}`,
  day: (ownerKey: string, day: string) => `${prefix}:limits:{${ownerKey}}:day:${day}`,
  released: (ownerKey: string, admissionId: string) =>
    `${prefix}:limits:{${ownerKey}}:released:${admissionId}`,
  /** One automaton run's committed budget: a hash of `committed` (micro) and `gen` (its seeding). */
  budget: (ownerKey: string, agentId: string, startedAtMs: number) =>
    `${prefix}:limits:{${ownerKey}}:budget:${agentId}:${startedAtMs}`,
  /** What `day` was before the hash tags; only read by migrateLegacyDayCounters. */
  legacyDay: (ownerKey: string, day: string) => `${prefix}:limits:day:${ownerKey}:${day}`,
});

/** Where the owner's keys start: a key of another owner (an admission from before the tags) is not in its slot. */
const ownerKeyPrefix = (prefix: string, ownerKey: string) => `${prefix}:limits:{${ownerKey}}:`;

// KEYS: cooldowns, day[, automaton budget]. ARGV: now ms, failed member, market member, market
// cooldown ms, max trades, spend, daily limit (-1: none), day ttl s[, recorded micro, budget micro,
// amount micro, new generation, budget ttl s]. The budget is checked last and reserved with the rest,
// so a refusal anywhere takes nothing. Replies {'ok', generation} when a budget was reserved.
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
local gen = ''
if KEYS[3] then
  if redis.call('EXISTS', KEYS[3]) == 0 then
    redis.call('HSET', KEYS[3], 'committed', ARGV[9], 'gen', ARGV[12])
  end
  local committed = tonumber(redis.call('HGET', KEYS[3], 'committed'))
  if committed + tonumber(ARGV[11]) > tonumber(ARGV[10]) then
    redis.call('EXPIRE', KEYS[3], ARGV[13])
    return {'automaton_budget', tostring(committed)}
  end
  redis.call('HINCRBY', KEYS[3], 'committed', ARGV[11])
  redis.call('EXPIRE', KEYS[3], ARGV[13])
  gen = redis.call('HGET', KEYS[3], 'gen')
end
redis.call('HINCRBY', KEYS[2], 'trades', 1)
redis.call('HINCRBY', KEYS[2], 'spent', ARGV[6])
redis.call('EXPIRE', KEYS[2], ARGV[8])
local cooldown = tonumber(ARGV[4])
if cooldown > 0 then
  redis.call('ZADD', KEYS[1], now + cooldown, ARGV[3])
  if redis.call('PTTL', KEYS[1]) < cooldown then redis.call('PEXPIRE', KEYS[1], cooldown) end
end
return {'ok', gen}
`);

// KEYS: released marker, day, cooldowns. ARGV: spend, failed member ('' for none), failed until ms,
// now ms, marker ttl s, market cooldown member to close ('' for none) and its expiry ms[, budget
// micro, budget generation]; KEYS[4] the automaton budget, given back only to the seeding that
// reserved it (a counter seeded since counts the trade as the database has it).
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
if KEYS[4] and redis.call('HGET', KEYS[4], 'gen') == ARGV[9] then
  redis.call('HINCRBY', KEYS[4], 'committed', 0 - tonumber(ARGV[8]))
end
return 1
`);

/** Checks the buy against cooldowns and the owner's daily limits and, if it passes, counts it. */
export async function admitBuy(
  redis: RedisClient,
  prefix: string,
  req: BuyAdmissionRequest,
): Promise<AdmissionVerdict> {
  const keys = limitKeys(prefix);
  const day = utcDay(req.now);
  const budget = req.budget ?? null;
  const reply = (await ADMIT(
    redis,
    [keys.cooldowns(req.ownerKey, req.agentId), keys.day(req.ownerKey, day), ...(budget ? [budget.key] : [])],
    [
      req.now.getTime(),
      memberOf('failed_trade', req),
      memberOf('market', req),
      req.marketCooldownMs,
      req.maxTradesPerDay,
      req.spendMicro,
      req.dailyLimitMicro ?? -1,
      DAY_TTL_SECONDS,
      ...(budget
        ? [
            budget.recordedMicro,
            budget.budgetMicro,
            budget.amountMicro,
            randomUUID(),
            BUDGET_IDLE_TTL_SECONDS,
          ]
        : []),
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
        ...(budget ? { budget: { key: budget.key, gen: a ?? '', micro: budget.amountMicro } } : {}),
      },
    };
  if (verdict === 'automaton_budget') return { ok: false, reason: verdict, committedMicro: Number(a) };
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
  redis: RedisClient,
  prefix: string,
  agentId: string,
  admission: Admission,
  now: Date,
  failed?: { target: CooldownTarget; until: Date },
): Promise<void> {
  const keys = limitKeys(prefix);
  // A budget key recorded before the keys were tagged by owner is in another slot: on a cluster it
  // is left out (its counter is re-derived from the database after a quiet minute).
  const budget =
    admission.budget &&
    (admission.budget.key.startsWith(ownerKeyPrefix(prefix, admission.ownerKey)) || !isClusterClient(redis))
      ? admission.budget
      : null;
  await RELEASE(
    redis,
    [
      keys.released(admission.ownerKey, admission.id),
      keys.day(admission.ownerKey, admission.day),
      keys.cooldowns(admission.ownerKey, agentId),
      ...(budget ? [budget.key] : []),
    ],
    [
      admission.spendMicro,
      failed ? memberOf('failed_trade', failed.target) : '',
      failed?.until.getTime() ?? 0,
      now.getTime(),
      DAY_TTL_SECONDS,
      admission.openedCooldown ?? '',
      admission.openedCooldownUntil ?? 0,
      ...(budget ? [budget.micro, budget.gen] : []),
    ],
  );
}

/** The agent's cooldowns (under its owner `ownerKey`) still running at `now`, soonest expiry first. */
export async function activeCooldowns(
  redis: RedisClient,
  prefix: string,
  ownerKey: string,
  agentId: string,
  now: Date,
): Promise<Cooldown[]> {
  const flat = await redis.zrangebyscore(
    limitKeys(prefix).cooldowns(ownerKey, agentId),
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
export async function dailyUsage(redis: RedisClient, prefix: string, ownerKey: string, now: Date) {
  const [trades, spent] = await redis.hmget(limitKeys(prefix).day(ownerKey, utcDay(now)), 'trades', 'spent');
  return { trades: Number(trades ?? 0), spentMicro: Number(spent ?? 0) };
}

// KEYS: legacy day counter, its tagged name. ARGV: none. Adds the legacy counts to the tagged
// counter and removes the legacy one in one step, so two processes starting at once count it once.
const MIGRATE_DAY = redisScript(`
local old = redis.call('HGETALL', KEYS[1])
if #old == 0 then return 0 end
for i = 1, #old, 2 do redis.call('HINCRBY', KEYS[2], old[i], old[i + 1]) end
local ttl = redis.call('TTL', KEYS[1])
redis.call('DEL', KEYS[1])
if ttl > 0 and redis.call('TTL', KEYS[2]) < ttl then redis.call('EXPIRE', KEYS[2], ttl) end
return 1
`);

/**
 * Carries the day counters stored under their untagged names (before limitKeys tagged them by
 * owner) over to the tagged ones, so a deploy does not give every owner a fresh daily allowance.
 * Only on a single Redis: a cluster never held the untagged names (the two names of one counter
 * are in different slots there). Old processes still running during a rolling deploy may write
 * an untagged counter after this ran; each process start carries over what it finds.
 */
export async function migrateLegacyDayCounters(redis: RedisClient, prefix: string): Promise<number> {
  if (isClusterClient(redis)) return 0;
  const legacy = limitKeys(prefix).legacyDay('', '');
  let moved = 0;
  for (const key of await scanKeys(redis, `${legacy.slice(0, -1)}*`)) {
    // `<prefix>:limits:day:<owner key, may hold ':'>:<yyyy-mm-dd>`
    const rest = key.slice(legacy.length - 1);
    const day = rest.slice(-10);
    const ownerKey = rest.slice(0, -11);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || !ownerKey) continue;
    moved += Number(await MIGRATE_DAY(redis, [key, limitKeys(prefix).day(ownerKey, day)], []));
  }
  return moved;
}
