// `npm run bench:reads`: read latency on a large catalogue. Seeds 100,000 markets and 10,000 agents
// that have traded (directly into the database: the point is the reads), makes a few real trades
// for the measured agent, then measures market lists (several filter mixes), a single market,
// context, briefing and the leaderboard at 100 concurrent connections. Prints a markdown table.
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import autocannon from 'autocannon';
import { createModels } from '../shared/domains/models.js';
import { STARTING_BALANCE_MICRO } from '../shared/domains/money.js';
import { remarkLeaderboard } from '../shared/domains/reads/leaderboard.js';
import { stateAt } from '../shared/domains/venues/sim/lmsr.js';
import { connectMongo } from '../shared/infra/mongo.js';
import { startStack } from './stack.js';

const MARKETS = Number(process.env.BENCH_MARKETS ?? 100_000);
const AGENTS = Number(process.env.BENCH_AGENTS ?? 10_000);
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 100);
const WORDS = [
  'bitcoin',
  'election',
  'inflation',
  'championship',
  'launch',
  'award',
  'rates',
  'storm',
  'merger',
  'summit',
];
const TAGS = ['politics', 'sports', 'crypto', 'economics', 'science', 'culture'];

const stack = await startStack({ REGISTER_RATE_LIMIT_PER_MINUTE: '1000000' }, { memoryDatabase: true });
const conn = await connectMongo(stack.mongoUri, 'agent_trading');
try {
  const models = createModels(conn);
  const now = Date.now();
  const s = stateAt(2241, 0.5);
  const t0 = performance.now();
  for (let start = 0; start < MARKETS; start += 5000) {
    await models.Market.collection.insertMany(
      Array.from({ length: Math.min(5000, MARKETS - start) }, (_, k) => {
        const i = start + k;
        return {
          _id: randomUUID(),
          question: `Will the ${WORDS[i % WORDS.length]} market #${i} resolve YES?`,
          status: i % 20 === 0 ? 'resolved' : 'active',
          importSource: i % 3 === 0 ? 'polymarket' : 'sim',
          tags: [TAGS[i % TAGS.length]!, `group-${i % 100}`],
          currentPrice: 0.5,
          volume24hMicro: (i * 7919) % 1_000_000_000,
          resolvesAt: new Date(now + ((i % 2000) + 1) * 3600_000),
          createdAt: new Date(now - i * 1000),
          isOrderbookOpen: true,
          simTradeable: true,
          analyticsOnly: false,
          tickSize: 0.01,
          feeRateBps: 0,
          book: { b: 2241, q0Yes: s.qYes, q0No: s.qNo, yesMicro: 0, noMicro: 0, version: 0 },
        } as never;
      }),
      { ordered: false },
    );
  }
  for (let start = 0; start < AGENTS; start += 5000) {
    await models.Agent.collection.insertMany(
      Array.from({ length: Math.min(5000, AGENTS - start) }, (_, k) => {
        const i = start + k;
        const pnl = ((i * 104729) % 2_000_000_000) - 1_000_000_000;
        return {
          _id: randomUUID(),
          name: `bench-agent-${i}`,
          apiKeyHash: randomUUID(),
          keyPrefix: 'sk_live_bench...',
          claimCode: `bench-${i}`,
          status: 'unclaimed',
          balanceMicro: STARTING_BALANCE_MICRO + pnl,
          startingBalanceMicro: STARTING_BALANCE_MICRO,
          reservedMicro: 0,
          realizedPnlMicro: pnl,
          leaderboardPnlMicro: pnl,
          ledgerSeq: 0,
          simTradesCount: 1 + (i % 50),
          realTradesCount: 0,
          tradesCount: 1 + (i % 50),
          winCount: i % 7,
          lossCount: i % 5,
          autoRedeemEnabled: true,
          createdAt: new Date(now - i * 1000),
        } as never;
      }),
      { ordered: false },
    );
  }
  const seededIn = (performance.now() - t0) / 1000;

  // Readers rotate over 200 agents so that the per-agent context limit (300/min) measures reads, not 429s.
  const keys: string[] = [];
  for (let i = 0; i < 200; i++) {
    const reg = await fetch(`${stack.baseUrl}/api/sdk/agents/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"name":"bench-reader-${i}"}`,
    });
    keys.push(((await reg.json()) as { api_key: string }).api_key);
  }
  const auth = { authorization: `Bearer ${keys[0]}` };
  const list = (await (
    await fetch(`${stack.baseUrl}/api/sdk/markets?limit=5`, { headers: auth })
  ).json()) as { markets: { id: string }[] };
  const marketId = list.markets[0]!.id;
  for (const key of keys.slice(0, 20)) {
    for (const m of list.markets) {
      await fetch(`${stack.baseUrl}/api/sdk/trade`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ market_id: m.id, side: 'yes', amount: 5 }),
      });
    }
  }
  await remarkLeaderboard(models, new Date());

  const cases: [string, string][] = [
    ['markets: default (active, by volume)', '/api/sdk/markets'],
    ['markets: q=bitcoin', '/api/sdk/markets?q=bitcoin'],
    ['markets: tags=crypto,group-2', '/api/sdk/markets?tags=crypto,group-2'],
    ['markets: venue=polymarket&sort=recent', '/api/sdk/markets?venue=polymarket&sort=recent'],
    ['markets: max_hours_to_resolution=24', '/api/sdk/markets?max_hours_to_resolution=24'],
    ['single market', `/api/sdk/markets/${marketId}`],
    ['context', `/api/sdk/context/${marketId}?my_probability=0.6`],
    ['leaderboard (sdk-agents, 100 rows)', '/api/leaderboard/sdk-agents'],
    ['briefing', '/api/sdk/briefing'],
  ];
  const rows = [];
  for (const [what, path] of cases) {
    let n = 0;
    const r = await autocannon({
      url: stack.baseUrl,
      duration: DURATION,
      connections: CONNECTIONS,
      requests: [
        {
          setupRequest: () => ({
            method: 'GET' as const,
            path,
            headers: { authorization: `Bearer ${keys[n++ % keys.length]}` },
          }),
        },
      ],
    });
    rows.push({
      what,
      rps: r.requests.average,
      p50: r.latency.p50,
      p99: r.latency.p99,
      errors: r.errors + r.non2xx,
    });
  }
  console.log(
    `\n### Reads (${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores, ${MARKETS} markets, ${AGENTS} agents, ${CONNECTIONS} connections, ${DURATION} s per row; seeding took ${seededIn.toFixed(1)} s)\n`,
  );
  console.log('| read | req/s | p50 ms | p99 ms | errors |');
  console.log('|---|---|---|---|---|');
  for (const r of rows)
    console.log(`| ${r.what} | ${Math.round(r.rps * 10) / 10} | ${r.p50} | ${r.p99} | ${r.errors} |`);
} finally {
  await conn.close();
  await stack.stop();
}
