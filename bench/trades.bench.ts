// `npm run bench:trades`: sim trade throughput and latency against the all-in-one service on this
// machine, next to its floor in the same run: a bare HTTP endpoint and a no-op job round trip
// through BullMQ. Prints a markdown table for docs/benchmarks.md.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { QueueClient } from '../shared/infra/queue/queue-client.js';
import { startStack } from './stack.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 15);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const AGENTS = Number(process.env.BENCH_AGENTS ?? 100);

interface Row {
  what: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function cannon(what: string, opts: autocannon.Options): Promise<Row> {
  const r = await autocannon({ duration: DURATION, connections: CONNECTIONS, ...opts });
  return {
    what,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.non2xx,
  };
}

/** The floor of request-reply: enqueue a no-op job and wait for a worker's answer, CONNECTIONS at a time. */
async function noOpRoundTrips(redisUrl: string): Promise<Row> {
  const redis = new Redis(redisUrl, { enableOfflineQueue: true });
  const queues = new QueueClient(redis, 'bull', redisUrl);
  const latencies: number[] = [];
  const end = Date.now() + DURATION * 1000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (Date.now() < end) {
        const t0 = performance.now();
        await queues.enqueueAndWait('ping', { nonce: randomBytes(12).toString('base64url') }, 10_000);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  await queues.close();
  redis.disconnect();
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]! * 10) / 10;
  return {
    what: 'no-op job round trip (BullMQ enqueue → worker → result)',
    rps: latencies.length / DURATION,
    p50: at(0.5),
    p99: at(0.99),
    errors: 0,
  };
}

// The bench measures the trade path: each agent buys the same two market sides over and over,
// which the free tier's cooldowns would refuse (they are measured as part of every admission anyway).
const stack = await startStack({
  REGISTER_RATE_LIMIT_PER_MINUTE: '1000000',
  SIM_COOLDOWN_SECONDS: '0',
  FAILED_TRADE_COOLDOWN_SECONDS: '0',
});
try {
  const { baseUrl } = stack;
  const keys: string[] = [];
  for (let i = 0; i < AGENTS; i++) {
    const r = await fetch(`${baseUrl}/api/sdk/agents/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: `bench-${i}` }),
    });
    const key = ((await r.json()) as { api_key: string }).api_key;
    keys.push(key);
    // A long run buys more than the default 50 a day per agent.
    await fetch(`${baseUrl}/api/sdk/user/settings`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ max_trades_per_day: 1000 }),
    });
  }
  const list = await fetch(`${baseUrl}/api/sdk/markets?limit=200`, {
    headers: { authorization: `Bearer ${keys[0]}` },
  });
  const markets = ((await list.json()) as { markets: { id: string }[] }).markets.map((m) => m.id);
  let n = 0;
  const tradeRequest = () => {
    n++;
    return {
      method: 'POST' as const,
      path: '/api/sdk/trade',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${keys[n % keys.length]}` },
      body: JSON.stringify({
        market_id: markets[(n * 7) % markets.length],
        side: n % 2 ? 'yes' : 'no',
        amount: 1,
      }),
    };
  };
  const rows: Row[] = [];
  rows.push(await cannon('bare HTTP endpoint (GET /healthz/live)', { url: `${baseUrl}/healthz/live` }));
  rows.push(await noOpRoundTrips(stack.redisUrl));
  rows.push(
    await cannon(`sim trade, ${AGENTS} agents × ${markets.length} markets (POST /api/sdk/trade)`, {
      url: baseUrl,
      requests: [{ setupRequest: tradeRequest }],
    }),
  );
  const trades = rows[2]!;
  const paced = await cannon('sim trade paced at 200/s', {
    url: baseUrl,
    overallRate: 200,
    connections: 64,
    requests: [{ setupRequest: tradeRequest }],
  });
  rows.push(paced);

  const fmt = (x: number) => (Math.round(x * 10) / 10).toString();
  console.log(
    `\n### Trades (${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores, ${DURATION} s per row, ${CONNECTIONS} connections)\n`,
  );
  console.log('| what | req/s | p50 ms | p99 ms | errors |');
  console.log('|---|---|---|---|---|');
  for (const r of rows)
    console.log(`| ${r.what} | ${fmt(r.rps)} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${r.errors} |`);
  console.log(
    `\nTrade throughput / no-op round trip: ${fmt((trades.rps / rows[1]!.rps) * 100)} %; trade / bare HTTP: ${fmt((trades.rps / rows[0]!.rps) * 100)} %.`,
  );
} finally {
  await stack.stop();
}
