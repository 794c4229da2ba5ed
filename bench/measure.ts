// The load generators every bench part shares: HTTP closed loops with autocannon, paced HTTP with
// bench/paced.ts, the BullMQ request-reply loop of the queue's own floor (closed or paced), and the
// helpers that register bench agents and rotate requests over them.
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { QueueClient } from '../shared/infra/queue/queue-client.js';
import { httpSender, pacedLoad, type HttpRequest } from './paced.js';

/** One measured row: `offered` is the paced rate (req/s), null for a closed loop. */
export interface Row {
  what: string;
  connections: number;
  offered: number | null;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

export interface Load {
  seconds: number;
  connections: number;
  /** Requests per second over all connections; unset = each connection sends as soon as answered. */
  rate?: number;
}

/** The next request of a load: called once per request. */
export type NextRequest = () => HttpRequest;

function rowOf(what: string, load: Load, latencies: number[], errors: number, elapsed: number): Row {
  latencies.sort((a, b) => a - b);
  return {
    what,
    connections: load.connections,
    offered: load.rate ?? null,
    rps: latencies.length / Math.max(elapsed, load.seconds),
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    errors,
  };
}

/**
 * HTTP load on `baseUrl`: a closed loop with autocannon (each connection sends as soon as it is
 * answered), or with `load.rate` paced by bench/paced.ts (latency from the scheduled start).
 */
export async function httpLoad(what: string, load: Load, baseUrl: string, next: NextRequest): Promise<Row> {
  await settle();
  if (load.rate) {
    const sender = httpSender(baseUrl, load.connections);
    try {
      const out = await pacedLoad(
        { seconds: load.seconds, rate: load.rate, maxInFlight: load.connections },
        () => sender.send(next()),
      );
      return rowOf(what, load, out.latencies, out.errors, out.elapsedSeconds);
    } finally {
      sender.close();
    }
  }
  const r = await autocannon({
    url: baseUrl,
    duration: load.seconds,
    connections: load.connections,
    requests: [{ setupRequest: () => next() }],
  });
  return {
    what,
    connections: load.connections,
    offered: null,
    rps: r.requests.total / load.seconds,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts + r.non2xx,
  };
}

/** A second's pause before every row: the previous row's answers and garbage are not this row's. */
const settle = () => new Promise((r) => setTimeout(r, 1000));

/** The q-quantile of ascending `sorted` values, rounded to 0.1 ms. */
export function quantile(sorted: number[], q: number): number {
  if (!sorted.length) return NaN;
  const v = sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
  return Math.round(v * 10) / 10;
}

/**
 * The floor of request-reply: enqueue a no-op `ping` job and wait for a worker's answer, with
 * `connections` waiting at once, back to back or (with `rate`) paced like httpLoad.
 */
export async function noOpRoundTrips(redisUrl: string, load: Load, prefix = 'bull'): Promise<Row> {
  const redis = new Redis(redisUrl, { enableOfflineQueue: true });
  const queues = new QueueClient(redis, prefix, { redisUrl });
  const roundTrip = async () =>
    (await queues.enqueueAndWait('ping', { nonce: randomBytes(12).toString('base64url') }, 10_000)).state ===
    'completed';
  const what = 'no-op job round trip (BullMQ enqueue → worker → result)';
  await settle();
  try {
    // One round trip first, outside the clock: it opens the QueueEvents connection.
    await roundTrip();
    if (load.rate) {
      const out = await pacedLoad(
        { seconds: load.seconds, rate: load.rate, maxInFlight: load.connections },
        roundTrip,
      );
      return rowOf(what, load, out.latencies, out.errors, out.elapsedSeconds);
    }
    const latencies: number[] = [];
    let errors = 0;
    const start = performance.now();
    const end = start + load.seconds * 1000;
    await Promise.all(
      Array.from({ length: load.connections }, async () => {
        while (performance.now() < end) {
          const t0 = performance.now();
          if (await roundTrip()) latencies.push(performance.now() - t0);
          else errors++;
        }
      }),
    );
    return rowOf(what, load, latencies, errors, (performance.now() - start) / 1000);
  } finally {
    await queues.close();
    redis.disconnect();
  }
}

/**
 * Waits (up to `timeoutMs`) until no queue has a job waiting or running: autocannon stops at the
 * end of a row, but the trades it left queued would still load the next row.
 */
export async function drainQueues(redisUrl: string, prefix = 'bull', timeoutMs = 60_000): Promise<void> {
  const redis = new Redis(redisUrl, { enableOfflineQueue: true });
  const queues = new QueueClient(redis, prefix, { redisUrl });
  try {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const counts = Object.values(await queues.jobCounts());
      if (counts.every((c) => !c.waiting && !c.active && !c.prioritized)) return;
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    await queues.close();
    redis.disconnect();
  }
}

export async function postJson(url: string, body: unknown, key?: string, method = 'POST'): Promise<Response> {
  return fetch(url, {
    method,
    headers: {
      'content-type': 'application/json',
      ...(key ? { authorization: `Bearer ${key}` } : {}),
    },
    body: JSON.stringify(body),
  });
}

/**
 * Registers `n` agents and returns their keys; with `maxTradesPerDay`, raises each one's daily buy
 * limit (a long run buys far more than the default 50 a day per agent; the stack must allow it
 * through TIER_MAX_TRADES_PER_DAY).
 */
export async function registerAgents(
  baseUrl: string,
  n: number,
  prefix: string,
  maxTradesPerDay?: number,
): Promise<string[]> {
  const keys: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = await postJson(`${baseUrl}/api/sdk/agents/register`, { name: `${prefix}-${i}` });
    if (!r.ok) throw new Error(`registering ${prefix}-${i}: ${r.status} ${await r.text()}`);
    const key = ((await r.json()) as { api_key: string }).api_key;
    keys.push(key);
    if (maxTradesPerDay !== undefined) {
      const s = await postJson(
        `${baseUrl}/api/sdk/user/settings`,
        { max_trades_per_day: maxTradesPerDay },
        key,
        'PATCH',
      );
      if (!s.ok) throw new Error(`settings of ${prefix}-${i}: ${s.status} ${await s.text()}`);
    }
  }
  return keys;
}

/** Env that lets bench agents buy the same market sides over and over all day. */
export const TRADING_BENCH_ENV: Record<string, string> = {
  REGISTER_RATE_LIMIT_PER_MINUTE: '1000000',
  SIM_COOLDOWN_SECONDS: '0',
  FAILED_TRADE_COOLDOWN_SECONDS: '0',
  TIER_MAX_TRADES_PER_DAY: '1000000,1000000,1000000',
};
export const BENCH_MAX_TRADES_PER_DAY = 1_000_000;

/**
 * The trade requests of the bench: the n-th trade is agent n mod agents buying $1 of market 7n mod
 * markets, yes and no in turn (each agent keeps buying the same two market sides, as a trading loop
 * does).
 */
export function tradeRequest(keys: string[], markets: string[]): NextRequest {
  let n = 0;
  return () => {
    n++;
    return {
      method: 'POST',
      path: '/api/sdk/trade',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${keys[n % keys.length]}` },
      body: JSON.stringify({
        market_id: markets[(n * 7) % markets.length],
        side: n % 2 ? 'yes' : 'no',
        amount: 1,
      }),
    };
  };
}

/** A GET of `path` by each agent in turn (per-agent limits measure reads, not 429s). */
export function getRequest(path: string, keys: string[] = []): NextRequest {
  let n = 0;
  return () => {
    const headers: Record<string, string> = {};
    if (keys.length) headers.authorization = `Bearer ${keys[n++ % keys.length]}`;
    return { method: 'GET', path, headers };
  };
}

export const BARE_HTTP = 'bare HTTP endpoint (GET /healthz/live)';
export const bareHttpRequest = getRequest('/healthz/live');

/** The ids of the first `n` markets the sim venue lists (by 24 h volume). */
export async function listMarketIds(baseUrl: string, key: string, n: number): Promise<string[]> {
  const r = await fetch(`${baseUrl}/api/sdk/markets?limit=${n}&venue=sim`, {
    headers: { authorization: `Bearer ${key}` },
  });
  if (!r.ok) throw new Error(`market list: ${r.status} ${await r.text()}`);
  return ((await r.json()) as { markets: { id: string }[] }).markets.map((m) => m.id);
}

/**
 * `httpLoad` spread over several base URLs (one per API process), the connections split evenly.
 * Closed loop: one autocannon per URL at once; req/s is their sum, p50 their request-weighted mean
 * and p99 the higher of theirs (autocannon gives percentiles, not its histogram: a close, slightly
 * pessimistic merge). Paced: one schedule whose requests go to the URLs in turn (percentiles exact).
 */
export async function httpLoadSpread(
  what: string,
  load: Load,
  baseUrls: string[],
  next: NextRequest,
): Promise<Row> {
  if (baseUrls.length === 1) return httpLoad(what, load, baseUrls[0]!, next);
  await settle();
  if (load.rate) {
    const senders = baseUrls.map((u) => httpSender(u, Math.ceil(load.connections / baseUrls.length)));
    let turn = 0;
    try {
      const out = await pacedLoad(
        { seconds: load.seconds, rate: load.rate, maxInFlight: load.connections },
        () => senders[turn++ % senders.length]!.send(next()),
      );
      return rowOf(what, load, out.latencies, out.errors, out.elapsedSeconds);
    } finally {
      for (const s of senders) s.close();
    }
  }
  const share = Math.max(1, Math.floor(load.connections / baseUrls.length));
  const runs = await Promise.all(
    baseUrls.map((url) =>
      autocannon({
        url,
        duration: load.seconds,
        connections: share,
        requests: [{ setupRequest: () => next() }],
      }),
    ),
  );
  const total = runs.reduce((s, r) => s + r.requests.total, 0);
  return {
    what,
    connections: share * baseUrls.length,
    offered: null,
    rps: total / load.seconds,
    p50:
      Math.round((runs.reduce((s, r) => s + r.latency.p50 * r.requests.total, 0) / Math.max(total, 1)) * 10) /
      10,
    p99: Math.max(...runs.map((r) => r.latency.p99)),
    errors: runs.reduce((s, r) => s + r.errors + r.timeouts + r.non2xx, 0),
  };
}
