import type { RedisClient } from '../../infra/redis.js';
import { redisScript } from '../../infra/redis-script.js';
import { utcDay } from '../limits/counters.js';
import { CENT_MICRO } from './mirror-amount.js';

/**
 * An agent's daily Reactor cap in Redis: one hash per agent and UTC day holding `used` (micro
 * venue units mirrored so far) and one field per signal with what that signal reserved. A signal
 * reserves once: asking again (a retried job, a replayed block, a second process) answers what it
 * reserved the first time, so `used` never counts a signal twice.
 */
const capKey = (prefix: string, agentId: string, day: string) => `${prefix}:reactor:cap:${agentId}:${day}`;

/** Kept a day past its own, so a reservation asked again late still finds its answer. */
const KEEP_SECONDS = 2 * 24 * 3600;

/**
 * KEYS[1] the day's hash; ARGV: the signal's field, the amount wanted, the cap, a cent, the TTL.
 * What is left of the cap bounds the amount, rounded down to a cent; a field already there answers
 * itself (`r`: given back, nothing reserved).
 */
const RESERVE = redisScript(`
local got = redis.call('HGET', KEYS[1], ARGV[1])
if got then
  if got == 'r' then return 0 end
  return tonumber(got)
end
local used = tonumber(redis.call('HGET', KEYS[1], 'used') or '0')
local left = tonumber(ARGV[3]) - used
if left < 0 then left = 0 end
local take = tonumber(ARGV[2])
if take > left then take = left - (left % tonumber(ARGV[4])) end
redis.call('HSET', KEYS[1], ARGV[1], take)
redis.call('HINCRBY', KEYS[1], 'used', take)
redis.call('EXPIRE', KEYS[1], ARGV[5])
return take
`);

/** KEYS[1] the day's hash; ARGV[1] the signal's field. Gives its reservation back, once. */
const GIVE_BACK = redisScript(`
local got = redis.call('HGET', KEYS[1], ARGV[1])
if not got or got == 'r' then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], 'r')
redis.call('HINCRBY', KEYS[1], 'used', -tonumber(got))
return tonumber(got)
`);

export interface CapReservation {
  agentId: string;
  signalId: string;
  /** When the signal was made: its UTC day is the cap's. */
  at: Date;
}

/** Reserves up to `wantMicro` (whole cents) of the agent's cap for a signal; answers what it got. */
export async function reserveDailyCap(
  redis: RedisClient,
  prefix: string,
  r: CapReservation,
  wantMicro: number,
  capMicro: number,
): Promise<number> {
  const got = await RESERVE(
    redis,
    [capKey(prefix, r.agentId, utcDay(r.at))],
    [`s:${r.signalId}`, wantMicro, capMicro, CENT_MICRO, KEEP_SECONDS],
  );
  return Number(got);
}

/** Returns a withdrawn signal's reservation to its day's cap (once); answers what came back. */
export async function giveBackDailyCap(
  redis: RedisClient,
  prefix: string,
  r: CapReservation,
): Promise<number> {
  return Number(await GIVE_BACK(redis, [capKey(prefix, r.agentId, utcDay(r.at))], [`s:${r.signalId}`]));
}

/** What the agent mirrored on `now`'s UTC day, in micro venue units. */
export async function dailyCapUsed(
  redis: RedisClient,
  prefix: string,
  agentId: string,
  now: Date,
): Promise<number> {
  return Number((await redis.hget(capKey(prefix, agentId, utcDay(now)), 'used')) ?? 0);
}
