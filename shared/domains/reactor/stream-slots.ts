import type { RedisClient } from '../../infra/redis.js';
import { redisScript } from '../../infra/redis-script.js';

/**
 * How many Reactor event streams one agent holds open, counted in Redis so that the bound holds
 * across every API process: one sorted set per agent whose members are the open connections and
 * whose scores are the moment each lease lapses. The process holding a connection renews its
 * lease on every heartbeat; a process that dies without releasing its connections frees their
 * slots when the leases lapse. Scores are Redis's own clock (TIME), so the processes' clocks do
 * not have to agree.
 */
export const streamSlotsKey = (prefix: string, agentId: string) => `${prefix}:reactor:streams:${agentId}`;

const NOW_MS = "local t = redis.call('TIME') local now = t[1] * 1000 + math.floor(t[2] / 1000)";

/** KEYS[1] the agent's set; ARGV: connection id, max, lease ms. 1 = taken, 0 = all slots in use. */
const takeSlot = redisScript(`${NOW_MS}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZSCORE', KEYS[1], ARGV[1]) == false and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  return 0
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1`);

/** KEYS[1] the agent's set; ARGV: connection id, lease ms. Only a slot still held is renewed. */
const renewSlot = redisScript(`${NOW_MS}
if redis.call('ZADD', KEYS[1], 'XX', 'CH', now + tonumber(ARGV[2]), ARGV[1]) == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 1`);

export interface StreamSlot {
  agentId: string;
  connectionId: string;
}

/** Takes one of the agent's `max` slots for `connectionId`; false when they are all in use. */
export async function takeStreamSlot(
  redis: RedisClient,
  prefix: string,
  slot: StreamSlot,
  max: number,
  leaseMs: number,
): Promise<boolean> {
  const taken = await takeSlot(
    redis,
    [streamSlotsKey(prefix, slot.agentId)],
    [slot.connectionId, max, leaseMs],
  );
  return Number(taken) === 1;
}

/** Extends the leases of the connections this process still holds (one round trip each, sent together). */
export async function renewStreamSlots(
  redis: RedisClient,
  prefix: string,
  slots: StreamSlot[],
  leaseMs: number,
): Promise<void> {
  await Promise.all(
    slots.map((s) => renewSlot(redis, [streamSlotsKey(prefix, s.agentId)], [s.connectionId, leaseMs])),
  );
}

export async function releaseStreamSlot(redis: RedisClient, prefix: string, slot: StreamSlot): Promise<void> {
  await redis.zrem(streamSlotsKey(prefix, slot.agentId), slot.connectionId);
}
