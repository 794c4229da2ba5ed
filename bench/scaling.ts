// The scaling rows of `npm run bench`: does a trade or a read get slower as the service grows?
// Two stacks on the memory database (the H2 file cannot ingest 100,000 markets in reasonable time):
//   - markets: the catalogue grows to 1,000, 10,000 and 100,000 seeded markets (straight into the
//     database, as the read bench does); at each size the same 100 agents trade 200 markets of the
//     newest slice at 16 connections (closed loop, as the trade bench's first row);
//   - agents: on the largest catalogue, 1,000 then 10,000 seeded agents; at each size the readers
//     read a single market, context, the leaderboard and the default list, paced at 200 req/s (so
//     the p50 is the service time, not a queue);
//   - history, on a stack of its own: 0, 100,000 and 1,000,000 recorded trades (straight into the
//     database, with the ledger entries, positions and fill events each leaves behind, spread over
//     every agent — the readers included — and 20 markets per agent) on a 1,000-market catalogue
//     and 10,000 agents; at each size context, briefing, positions, portfolio, the trades list and
//     the leaderboard are read paced at 200 req/s.
// Why the history has its own stack: the memory database keeps every document on its JVM heap, and
// the per-agent reads under test grow with the agent's history, not with the catalogue (the markets
// axis measures that). Recorded onto the 100,000-market catalogue of the other axes, 100,000 trades
// had not been seeded after 9 minutes at 13.9 GB resident; on a fresh database with a 1,000-market
// catalogue the whole heap goes to the history. `BENCH_SCALING_AXES=history` runs that axis alone.
import os from 'node:os';
import mongoose from 'mongoose';
import { readConfig, scalingConfig, tradeConfig } from './config.js';
import { createModels, type Models } from '../shared/domains/models.js';
import { remarkLeaderboard } from '../shared/domains/reads/leaderboard.js';
import { remarkAllBoards } from '../shared/domains/reads/venue-boards.js';
import { connectMongo } from '../shared/infra/mongo.js';
import { isMain } from '../shared/infra/process/is-main.js';
import {
  BENCH_MAX_TRADES_PER_DAY,
  drainQueues,
  getRequest,
  httpLoad,
  registerAgents,
  tradeRequest,
  TRADING_BENCH_ENV,
} from './measure.js';
import { historyReadCases, prepareReaders, readCases } from './reads.bench.js';
import { scalingTables } from './report.js';
import { historyTemplates, seedAgents, seedHistory, seedMarkets } from './seed.js';
import { startStack, type Stack } from './stack.js';
import type { ScalingResults } from './results.js';

const SCALING_READS = ['market', 'context', 'leaderboard', 'list'];

export async function runScaling(cfg = scalingConfig, log = console.log): Promise<ScalingResults> {
  const connections = tradeConfig.connections[0]!;
  const markets: ScalingResults['markets'] = [];
  const agents: ScalingResults['agents'] = [];
  if (cfg.axes.has('markets') || cfg.axes.has('agents')) {
    const stack = await startStack(TRADING_BENCH_ENV, { memoryDatabase: true });
    const conn = await connectMongo(stack.mongoUri, 'agent_trading');
    try {
      const models = createModels(conn);
      const { baseUrl } = stack;
      if (cfg.axes.has('markets')) {
        const traders = await registerAgents(
          baseUrl,
          tradeConfig.agents,
          'bench-trader',
          BENCH_MAX_TRADES_PER_DAY,
        );
        let seeded = 0;
        for (const size of cfg.marketSteps) {
          const fresh = await seedMarkets(models, seeded, size);
          seeded = size;
          // The newest slice's markets: no trade history yet, as at every other size.
          const traded = fresh.slice(-tradeConfig.markets);
          const trades = tradeRequest(traders, traded);
          await httpLoad('warm-up', { seconds: 1, connections }, baseUrl, trades);
          await drainQueues(stack.redisUrl);
          const trade = await httpLoad(
            `sim trade, ${size} markets`,
            { seconds: cfg.seconds, connections },
            baseUrl,
            trades,
          );
          await drainQueues(stack.redisUrl);
          markets.push({ markets: size, trade });
          log(`[scaling] ${size} markets: trade p50 ${trade.p50} ms, ${Math.round(trade.rps)}/s`);
        }
      }
      if (cfg.axes.has('agents')) {
        let population = 0;
        let readers: Awaited<ReturnType<typeof prepareReaders>> | undefined;
        for (const size of cfg.agentSteps) {
          await seedAgents(models, population, size);
          population = size;
          // Ranks the new agents (preparing the readers re-marks the leaderboard too).
          if (readers) await remarkLeaderboard(models, new Date());
          else readers = await prepareReaders(stack, models);
          const { keys, marketId } = readers;
          const reads: ScalingResults['agents'][number]['reads'] = [];
          for (const [key, what, path] of readCases(marketId).filter(([k]) => SCALING_READS.includes(k))) {
            const load = { seconds: cfg.seconds, connections: readConfig.connections, rate: readConfig.rate };
            reads.push({
              key,
              ...(await httpLoad(what, load, baseUrl, getRequest(path, keys))),
            });
          }
          agents.push({ agents: size, reads });
          log(`[scaling] ${size} agents: ${reads.map((r) => `${r.key} p50 ${r.p50} ms`).join(', ')}`);
        }
      }
    } finally {
      await conn.close();
      await stack.stop();
    }
  }
  const history = cfg.axes.has('history') ? await runHistoryAxis(cfg, log) : undefined;
  return {
    seconds: cfg.seconds,
    connections,
    readRate: readConfig.rate,
    markets,
    agents,
    ...(history && { history, historyMarkets: cfg.historyMarkets, historyAgents: cfg.historyAgents }),
  };
}

/**
 * The history axis on a stack of its own (the header says why): a fresh memory database with
 * `historyMarkets` markets and `historyAgents` agents seeded, the readers prepared, then each step's
 * history recorded on top of the last and the per-agent reads measured.
 */
async function runHistoryAxis(
  cfg: typeof scalingConfig,
  log: (line: string) => void,
): Promise<NonNullable<ScalingResults['history']>> {
  // The memory database holds the whole history on its heap, far more than the JVM's default (a
  // quarter of the RAM) at 1,000,000 trades. It gets two thirds of the RAM (BENCH_DATABASE_HEAP
  // overrides) with string deduplication (every document repeats the same field names and ids), and
  // a history that still outgrows it must end the JVM at once, not leave it collecting garbage for
  // minutes: the seeding then fails and the history axis stops there, the rows before it kept.
  const heap = process.env.BENCH_DATABASE_HEAP ?? `${Math.floor((os.totalmem() * 2) / 3 / 2 ** 30)}g`;
  const stack = await withJavaOptions(
    `-Xmx${heap} -XX:+UseStringDeduplication -XX:+ExitOnOutOfMemoryError`,
    () => startStack(TRADING_BENCH_ENV, { memoryDatabase: true }),
  );
  const history: NonNullable<ScalingResults['history']> = [];
  const conn = await connectMongo(stack.mongoUri, 'agent_trading');
  try {
    const models = createModels(conn);
    const t0 = performance.now();
    await seedMarkets(models, 0, cfg.historyMarkets);
    await seedAgents(models, 0, cfg.historyAgents);
    log(
      `[scaling] history stack: ${cfg.historyMarkets} markets and ${cfg.historyAgents} agents seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
    const { keys, marketId } = await prepareReaders(stack, models);
    await recordHistory(stack, models, cfg, keys, marketId, history, log);
  } finally {
    await conn.close();
    await stack.stop();
  }
  return history;
}

async function recordHistory(
  stack: Stack,
  models: Models,
  cfg: typeof scalingConfig,
  keys: string[],
  marketId: string,
  history: NonNullable<ScalingResults['history']>,
  log: (line: string) => void,
): Promise<void> {
  // The history goes in over a connection of its own whose server monitor waits longer than the
  // default 30 s: on a loaded machine a database busy ingesting may not answer a heartbeat in time,
  // and the driver would then drop the pool under an insert in flight.
  const seedConn = await mongoose
    .createConnection(stack.mongoUri, {
      dbName: 'agent_trading',
      autoIndex: false,
      connectTimeoutMS: 300_000,
    })
    .asPromise();
  try {
    const seedModels = createModels(seedConn);
    const templates = await historyTemplates(models);
    const [agentRows, marketRows] = await Promise.all([
      models.Agent.collection.find({}, { projection: { ledgerSeq: 1 } }).toArray(),
      models.Market.collection
        .find({ status: 'active', importSource: 'sim' }, { projection: { 'book.version': 1 } })
        .toArray(),
    ]);
    const seqs = new Map<string, number>();
    for (const a of agentRows) seqs.set(String(a._id), Number(a.ledgerSeq ?? 0));
    for (const m of marketRows)
      seqs.set(String(m._id), Number((m.book as { version?: number })?.version ?? 0));
    // The readers (registered through the API by prepareReaders) get their trades cloned whole.
    const readerRows = await models.Agent.collection
      .find({ name: /^bench-reader-/ }, { projection: { _id: 1 } })
      .toArray();
    const pools = {
      agents: agentRows.map((a) => String(a._id)),
      markets: marketRows.map((m) => String(m._id)),
      seqs,
      readers: new Set(readerRows.map((a) => String(a._id))),
    };
    let recorded = 0;
    for (const size of cfg.historySteps) {
      const t0 = performance.now();
      try {
        if (size > recorded) await seedHistory(seedModels, templates, recorded, size, pools);
      } catch (err) {
        // E.g. the memory database out of heap: keep the rows measured so far (and the other axes).
        const why = historyFailure(err, process.env.BENCH_DATABASE_HEAP);
        log(`[scaling] seeding ${size} trades failed, history axis stopped: ${why}`);
        history.push({ trades: size, seededSeconds: NaN, reads: [], failed: why });
        return;
      }
      recorded = Math.max(recorded, size);
      // The whole minute's re-mark, as the job runs it: a history that grew over time would have been
      // counted into the venue tallies minute by minute; seeded at once, it is counted here, not by
      // the service's first job in the middle of the measured rows.
      await remarkAllBoards(models, new Date());
      const seededSeconds = (performance.now() - t0) / 1000;
      log(`[scaling] ${size} trades recorded (seeding and re-marking took ${seededSeconds.toFixed(1)} s)`);
      // Each read once lightly before any is measured: the first rows after seeding otherwise pay the
      // cold JIT of both the service and the database (the 0-trade context row read 0.1 to 3 s p50
      // from one run to the next), and a row's p50 is meant to be the read's, not the warm-up's.
      for (const [, what, path] of historyReadCases(marketId))
        await httpLoad(`warm-up: ${what}`, HISTORY_WARM_UP, stack.baseUrl, getRequest(path, keys));
      const reads: (typeof history)[number]['reads'] = [];
      for (const [key, what, path] of historyReadCases(marketId)) {
        const load = { seconds: cfg.seconds, connections: readConfig.connections, rate: readConfig.rate };
        reads.push({ key, ...(await httpLoad(what, load, stack.baseUrl, getRequest(path, keys))) });
      }
      history.push({ trades: size, seededSeconds, reads });
      log(
        `[scaling] ${size} trades: ${reads.map((r) => `${r.key} p50 ${r.p50} / p99 ${r.p99} ms`).join(', ')}`,
      );
    }
  } finally {
    await seedConn.close().catch(() => undefined);
  }
}

/** The unmeasured pass of each history read before a step's rows (3 s at 50 req/s). */
const HISTORY_WARM_UP = { seconds: 3, connections: readConfig.connections, rate: 50 };

/** Why a step's seeding failed, in a line: a lost connection there is the database's JVM ended out of heap. */
function historyFailure(err: unknown, heap: string | undefined): string {
  const text = String(err).slice(0, 300);
  const lost = /ECONNREFUSED|ECONNRESET|closed|MongoNetwork|PoolCleared|Topology/i.test(text);
  return lost
    ? `${text} (the database went away while ingesting: most likely its JVM ran out of heap and ended, ` +
        `-Xmx ${heap ?? 'two thirds of the RAM'}; BENCH_DATABASE_HEAP sets it)`
    : text;
}

/** Runs `start` with `options` added to JAVA_TOOL_OPTIONS (the database's JVM reads them), then restores them. */
async function withJavaOptions<T>(options: string, start: () => Promise<T>): Promise<T> {
  const before = process.env.JAVA_TOOL_OPTIONS;
  process.env.JAVA_TOOL_OPTIONS = `${before ?? ''} ${options}`.trim();
  try {
    return await start();
  } finally {
    if (before === undefined) delete process.env.JAVA_TOOL_OPTIONS;
    else process.env.JAVA_TOOL_OPTIONS = before;
  }
}

if (isMain(import.meta.url)) {
  const results = await runScaling();
  console.log(`\n${scalingTables(results)}`);
}
