// `npm run bench:reads`: read latency on a large catalogue. Seeds 100,000 markets and 10,000 agents
// that have traded (directly into the database: the point is the reads), makes a few real trades
// for the readers, then measures the bare HTTP floor and market lists (several filter mixes), a
// single market, context, briefing and the leaderboard at 100 concurrent connections, and list,
// single market, context and briefing paced at 200 req/s. Part of `npm run bench`
// (bench/run-all.ts); prints its tables when run alone.
import { readConfig } from './config.js';
import { createModels, type Models } from '../shared/domains/models.js';
import { remarkLeaderboard } from '../shared/domains/reads/leaderboard.js';
import { connectMongo } from '../shared/infra/mongo.js';
import { isMain } from '../shared/infra/process/is-main.js';
import { BARE_HTTP, bareHttpRequest, getRequest, httpLoad, postJson, registerAgents } from './measure.js';
import { readTables } from './report.js';
import { seedAgents, seedMarkets } from './seed.js';
import { startStack, type Stack } from './stack.js';
import type { ReadResults } from './results.js';

/** The reads of the bench: [key, label, path]. */
export function readCases(marketId: string): [string, string, string][] {
  return [
    ['list', 'markets: default (active, by volume)', '/api/sdk/markets'],
    ['list-q', 'markets: q=bitcoin', '/api/sdk/markets?q=bitcoin'],
    ['list-tags', 'markets: tags=crypto,group-2', '/api/sdk/markets?tags=crypto,group-2'],
    ['list-recent', 'markets: venue=polymarket&sort=recent', '/api/sdk/markets?venue=polymarket&sort=recent'],
    ['list-soon', 'markets: max_hours_to_resolution=24', '/api/sdk/markets?max_hours_to_resolution=24'],
    ['market', 'single market', `/api/sdk/markets/${marketId}`],
    ['context', 'context', `/api/sdk/context/${marketId}?my_probability=0.6`],
    ['leaderboard', 'leaderboard (sdk-agents, 100 rows)', '/api/leaderboard/sdk-agents'],
    ['briefing', 'briefing', '/api/sdk/briefing'],
  ];
}

/** The per-agent reads whose cost can grow with the recorded history (the scaling part's history axis). */
export function historyReadCases(marketId: string): [string, string, string][] {
  const byKey = new Map(readCases(marketId).map((c) => [c[0], c]));
  return [
    byKey.get('context')!,
    byKey.get('briefing')!,
    ['positions', 'positions', '/api/sdk/positions'],
    ['portfolio', 'portfolio', '/api/sdk/portfolio'],
    ['trades', 'trades list', '/api/sdk/trades'],
    byKey.get('leaderboard')!,
  ];
}

export const PACED_READS = ['list', 'market', 'context', 'briefing'];

/**
 * The readers of a seeded stack: 200 registered agents (the per-agent context limit of 300/min
 * then measures reads, not 429s), the first 20 of which bought 5 markets each so context and
 * briefing have positions; the leaderboard re-marked. Returns the keys and a traded market.
 */
export async function prepareReaders(stack: Stack, models: Models) {
  const keys = await registerAgents(stack.baseUrl, 200, 'bench-reader');
  const list = await fetch(`${stack.baseUrl}/api/sdk/markets?limit=5&venue=sim`, {
    headers: { authorization: `Bearer ${keys[0]}` },
  });
  const markets = ((await list.json()) as { markets: { id: string }[] }).markets.map((m) => m.id);
  for (const key of keys.slice(0, 20)) {
    for (const id of markets) {
      const r = await postJson(
        `${stack.baseUrl}/api/sdk/trade`,
        { market_id: id, side: 'yes', amount: 5 },
        key,
      );
      if (!r.ok) throw new Error(`reader trade: ${r.status} ${await r.text()}`);
    }
  }
  await remarkLeaderboard(models, new Date());
  return { keys, marketId: markets[0]! };
}

export async function runReadBench(cfg = readConfig, log = console.log): Promise<ReadResults> {
  const stack = await startStack({ REGISTER_RATE_LIMIT_PER_MINUTE: '1000000' }, { memoryDatabase: true });
  const conn = await connectMongo(stack.mongoUri, 'agent_trading');
  try {
    const models = createModels(conn);
    const t0 = performance.now();
    await seedMarkets(models, 0, cfg.markets);
    await seedAgents(models, 0, cfg.agents);
    const seededSeconds = (performance.now() - t0) / 1000;
    log(`[reads] seeded ${cfg.markets} markets and ${cfg.agents} agents in ${seededSeconds.toFixed(1)} s`);
    const { keys, marketId } = await prepareReaders(stack, models);
    const cases = readCases(marketId);
    const url = stack.baseUrl;
    const closedLoad = { seconds: cfg.seconds, connections: cfg.connections };
    const bareHttp = await httpLoad(BARE_HTTP, closedLoad, url, bareHttpRequest);
    log(`[reads] bare HTTP: ${Math.round(bareHttp.rps)} req/s`);
    const closed: ReadResults['closed'] = [];
    for (const [key, what, path] of cases) {
      closed.push({ key, ...(await httpLoad(what, closedLoad, url, getRequest(path, keys))) });
      log(`[reads] ${what}: ${Math.round(closed.at(-1)!.rps)} req/s`);
    }
    const paced: ReadResults['paced'] = [];
    for (const [key, what, path] of cases.filter(([k]) => PACED_READS.includes(k))) {
      const load = { ...closedLoad, rate: cfg.rate };
      paced.push({
        key,
        ...(await httpLoad(`${what} paced at ${cfg.rate}/s`, load, url, getRequest(path, keys))),
      });
      log(`[reads] ${what} paced at ${cfg.rate}/s: p99 ${paced.at(-1)!.p99} ms`);
    }
    return {
      seconds: cfg.seconds,
      markets: cfg.markets,
      agents: cfg.agents,
      connections: cfg.connections,
      seededSeconds,
      bareHttp,
      closed,
      paced,
      rate: cfg.rate,
    };
  } finally {
    await conn.close();
    await stack.stop();
  }
}

if (isMain(import.meta.url)) {
  const results = await runReadBench();
  console.log(`\n${readTables(results)}`);
}
