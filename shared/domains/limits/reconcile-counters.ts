import { getMany, scanKeys, type RedisClient } from '../../infra/redis.js';
import type { TradeModel } from '../trading/trade.model.js';
import type { Admission } from '../trading/trade.model.js';
import { chunks } from '../../util/chunks.js';
import { DAY_TTL_SECONDS, limitKeys, utcDay } from './counters.js';

const CHUNK = 500;
const DAY_MS = 24 * 3600_000;

/** What a reconciliation changed: day counters rewritten, market cooldowns removed. */
export interface CounterRepairs {
  dailyCounts: number;
  cooldowns: number;
}

/**
 * Rebuilds the Redis safeguards from the trades the database holds. Redis counts an admission when
 * it is taken, before its trade is written; a database that lost that write (the embedded one,
 * killed) leaves a count, and a market cooldown, for a trade that does not exist. Here a day's
 * count is what the database's admissions of that day add up to, less those given back (their
 * release marker is in Redis), and a market cooldown stays only when a recorded admission opened it.
 *
 * Only while no request is admitting buys: an admission taken meanwhile, its trade not written
 * yet, would be undone (the start of the all-in-one process, before it serves).
 */
export async function reconcileCounters(
  redis: RedisClient,
  prefix: string,
  Trade: TradeModel,
  now: Date,
): Promise<CounterRepairs> {
  return {
    dailyCounts: await reconcileDailyCounts(redis, prefix, Trade, now),
    cooldowns: await reconcileMarketCooldowns(redis, prefix, Trade, now),
  };
}

/** Today's and yesterday's counters (the ones still alive: DAY_TTL_SECONDS), recounted. */
async function reconcileDailyCounts(redis: RedisClient, prefix: string, Trade: TradeModel, now: Date) {
  const keys = limitKeys(prefix);
  const days = [utcDay(now), utcDay(new Date(now.getTime() - DAY_MS))];
  // Admissions of those days belong to trades created from the start of yesterday (an hour of margin).
  const since = new Date(Date.parse(days[1]!) - 3600_000);
  const trades = await Trade.find(
    { createdAt: { $gte: since }, admission: { $ne: null } },
    { admission: 1 },
  ).lean();
  const admissions = trades
    .map((t) => t.admission)
    .filter((a): a is Admission => !!a && days.includes(a.day));
  const released = new Set<string>();
  for (const chunk of chunks(admissions, CHUNK)) {
    const markers = await getMany(
      redis,
      chunk.map((a) => keys.released(a.ownerKey, a.id)),
    );
    chunk.forEach((a, i) => markers[i] !== null && released.add(a.id));
  }
  const held = new Map<string, { trades: number; spent: number }>();
  for (const a of admissions) {
    if (released.has(a.id)) continue;
    const key = keys.day(a.ownerKey, a.day);
    const count = held.get(key) ?? { trades: 0, spent: 0 };
    count.trades += 1;
    count.spent += a.spendMicro;
    held.set(key, count);
  }
  let repaired = 0;
  const stored = new Set<string>();
  for (const day of days) for (const key of await scanKeys(redis, keys.day('*', day))) stored.add(key);
  for (const key of new Set([...stored, ...held.keys()])) {
    const want = held.get(key) ?? { trades: 0, spent: 0 };
    const [trades, spent] = await redis.hmget(key, 'trades', 'spent');
    if (Number(trades ?? 0) === want.trades && Number(spent ?? 0) === want.spent) continue;
    await redis.multi().hset(key, want).expire(key, DAY_TTL_SECONDS).exec();
    repaired++;
  }
  return repaired;
}

/** Running market cooldowns (`market|venue|market|side`, scored by expiry) no recorded admission opened. */
async function reconcileMarketCooldowns(redis: RedisClient, prefix: string, Trade: TradeModel, now: Date) {
  const keys = limitKeys(prefix);
  // `<prefix>:limits:{<owner>}:cooldowns:<agent id>`
  const agentIdOf = (key: string) => key.slice(key.lastIndexOf('}:cooldowns:') + '}:cooldowns:'.length);
  const running: { key: string; agentId: string; member: string; until: number }[] = [];
  for (const key of await scanKeys(redis, keys.cooldowns('*', '*'))) {
    const flat = await redis.zrangebyscore(key, `(${now.getTime()}`, '+inf', 'WITHSCORES');
    for (let i = 0; i < flat.length; i += 2) {
      if (!flat[i]!.startsWith('market|')) continue;
      running.push({
        key,
        agentId: agentIdOf(key),
        member: flat[i]!,
        until: Number(flat[i + 1]),
      });
    }
  }
  let removed = 0;
  for (const chunk of chunks(running, CHUNK)) {
    const opened = await Trade.find(
      {
        agentId: { $in: [...new Set(chunk.map((c) => c.agentId))] },
        'admission.openedCooldownUntil': { $in: [...new Set(chunk.map((c) => c.until))] },
      },
      { agentId: 1, admission: 1 },
    ).lean();
    const justified = new Set(
      opened.map((t) => `${t.agentId}|${t.admission?.openedCooldown}|${t.admission?.openedCooldownUntil}`),
    );
    for (const c of chunk) {
      if (justified.has(`${c.agentId}|${c.member}|${c.until}`)) continue;
      removed += await redis.zrem(c.key, c.member);
    }
  }
  return removed;
}
