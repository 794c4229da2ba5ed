// `npm run bench:reactor` (issue 37, "Speed, measured"): how fast a whale's fill on Polymarket's
// chain becomes each watching agent's signal. The Polymarket emulator runs in this process (its
// chain's blocks are read here to the millisecond); the all-in-one service (as `npm start`) is
// pointed at it and follows its chain with the fill feed. 1,000 agents each watch 10 of 1,000 whale
// wallets (PATCH /api/sdk/reactor/config), every agent holds GET /api/sdk/reactor/stream open, and
// 100 fills a second by those wallets are made through the emulator's admin fills endpoint, mined
// in Polygon's 2 s blocks. Measured: fill mined (its block's time) → signal written in
// `reactor_signals` (its createdAt) and → the `reactor_event` received by the agent's SSE client,
// p50/p99; and the service process's RSS and CPU idle without a stream, idle with every stream
// open, and under the fills. Part of `npm run bench` (bench/run-all.ts); prints its table alone.
import { prng } from '../shared/util/prng.js';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { keccak256, toUtf8Bytes } from 'ethers';
import { reactorConfig } from './config.js';
import { connectMongo } from '../shared/infra/mongo.js';
import { isMain } from '../shared/infra/process/is-main.js';
import { startPolymarketEmulator, type PolymarketEmulator } from '../test/emulators/polymarket/index.js';
import { drainQueues, postJson, quantile } from './measure.js';
import { pacedLoad } from './paced.js';
import { cpuSeconds, rssBytes, withStackCpu } from './process-cpu.js';
import { reactorTable } from './report.js';
import type { Latency, ReactorResults } from './results.js';
import { openSseClients, type SseClients } from './sse-clients.js';
import { startStack, type Stack } from './stack.js';

type Config = typeof reactorConfig;

/** The whale wallets: fixed addresses (lower-case, as the chain's logs carry them). */
const whaleWallets = (n: number) =>
  Array.from({ length: n }, (_, i) => `0x${keccak256(toUtf8Bytes(`bench whale ${i}`)).slice(-40)}`);

/** The watchlists: agent `a` watches `walletsPerAgent` distinct wallets drawn with the seed. */
export function watchlists(cfg: Config): number[][] {
  const random = prng(cfg.seed);
  return Array.from({ length: cfg.agents }, () => {
    const picked = new Set<number>();
    while (picked.size < Math.min(cfg.walletsPerAgent, cfg.wallets))
      picked.add(Math.floor(random() * cfg.wallets));
    return [...picked];
  });
}

interface SentFill {
  hash: string;
  wallet: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const MiB = (bytes: number | null) => Math.round(((bytes ?? 0) / 2 ** 20) * 10) / 10;

function latency(values: number[]): Latency {
  values.sort((a, b) => a - b);
  return {
    count: values.length,
    p50: quantile(values, 0.5),
    p99: quantile(values, 0.99),
    max: values.length ? Math.round(values.at(-1)! * 10) / 10 : NaN,
  };
}

/** `n` tasks, `concurrency` at a time. */
async function inParallel(n: number, concurrency: number, task: (i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, n) }, async () => {
      while (next < n) await task(next++);
    }),
  );
}

/** CPU % of one core the service process spent over `ms`, and its RSS at the end. */
async function sampleService(pid: number, ms: number) {
  const c0 = cpuSeconds(pid) ?? 0;
  const t0 = performance.now();
  await sleep(ms);
  const cpu = ((cpuSeconds(pid) ?? 0) - c0) / ((performance.now() - t0) / 1000);
  return { rssMiB: MiB(rssBytes(pid)), cpuPercent: Math.round(cpu * 1000) / 10 };
}

async function registerAgents(stack: Stack, n: number): Promise<string[]> {
  const keys: string[] = new Array(n);
  await inParallel(n, 8, async (i) => {
    const r = await postJson(`${stack.baseUrl}/api/sdk/agents/register`, { name: `bench-reactor-${i}` });
    if (!r.ok) throw new Error(`registering agent ${i}: ${r.status} ${await r.text()}`);
    keys[i] = ((await r.json()) as { api_key: string }).api_key;
  });
  return keys;
}

/** Every agent's Reactor config through the API, as a skill sets it. */
async function configureAgents(
  stack: Stack,
  keys: string[],
  lists: number[][],
  whales: string[],
): Promise<void> {
  await inParallel(keys.length, 8, async (i) => {
    const r = await postJson(
      `${stack.baseUrl}/api/sdk/reactor/config`,
      {
        wallets: lists[i]!.map((w) => whales[w]!),
        enabled: true,
        venue: 'sim',
        min_size: 0,
        mirror_fraction: 0.1,
        max_size: 1_000,
        daily_cap: 1_000_000,
      },
      keys[i],
      'PATCH',
    );
    if (!r.ok) throw new Error(`reactor config of agent ${i}: ${r.status} ${await r.text()}`);
  });
}

/**
 * `fillRate` fills a second for `seconds` through the emulator's admin fills endpoint: fill k by a
 * wallet, on a market, side and size drawn with the seed. Answers the fills the emulator accepted.
 */
async function makeFills(
  emulator: PolymarketEmulator,
  whales: string[],
  markets: string[],
  cfg: Config,
  seconds: number,
  random: () => number,
): Promise<{ sent: SentFill[]; errors: number; elapsedSeconds: number }> {
  const sent: SentFill[] = [];
  const out = await pacedLoad({ seconds, rate: cfg.fillRate, maxInFlight: 16 }, async () => {
    const wallet = Math.floor(random() * cfg.wallets);
    const market = markets[Math.floor(random() * markets.length)]!;
    const body = {
      wallet: whales[wallet],
      side: random() < 0.5 ? 'BUY' : 'SELL',
      shares: 10 + Math.floor(random() * 200),
    };
    const r = await postJson(`${emulator.adminUrl}/markets/${market}/fills`, body);
    if (!r.ok) return false;
    sent.push({
      hash: ((await r.json()) as { transaction_hash: string }).transaction_hash.toLowerCase(),
      wallet,
    });
    return true;
  });
  return { sent, errors: out.errors, elapsedSeconds: out.elapsedSeconds };
}

/** The block time (ms) of each mined fill, from the emulated chain. */
function minedAt(emulator: PolymarketEmulator, fills: SentFill[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const f of fills) {
    const n = emulator.chain.txs.get(f.hash)?.blockNumber;
    const block = n === undefined ? undefined : emulator.chain.blocks.get(n);
    if (block) out.set(f.hash, block.timestampMs);
  }
  return out;
}

/** Waits until `count()` reaches `target` or stops growing for `quietMs` (at most `maxMs`). */
async function settle(count: () => number, target: number, quietMs: number, maxMs: number) {
  const deadline = Date.now() + maxMs;
  let last = -1;
  let since = Date.now();
  while (count() < target && Date.now() < deadline) {
    if (count() !== last) [last, since] = [count(), Date.now()];
    else if (Date.now() - since > quietMs) return;
    await sleep(100);
  }
}

/** The transaction hash a signal document mirrors (its own field, else from its id `<agent>|<signal_id>`). */
function signalTxHash(doc: Record<string, unknown>): string | undefined {
  const signal = (doc.signal ?? {}) as Record<string, unknown>;
  const v = doc.txHash ?? doc.tx_hash ?? signal.tx_hash ?? String(doc._id).split('|')[1]?.split(':')[0];
  return typeof v === 'string' ? v.toLowerCase() : undefined;
}

const asMs = (v: unknown) => (v instanceof Date ? v.getTime() : typeof v === 'number' ? v : NaN);

export async function runReactorBench(cfg = reactorConfig, log = console.log): Promise<ReactorResults> {
  const emulator = await startPolymarketEmulator({ port: 0 });
  let stack: Stack | undefined;
  let streams: SseClients | undefined;
  try {
    const mining = await postJson(`${emulator.adminUrl}/polygon/mining`, {
      mode: 'interval',
      block_time_ms: cfg.blockMs,
    });
    if (!mining.ok) throw new Error(`emulator mining: ${mining.status} ${await mining.text()}`);
    stack = await startStack(
      {
        REGISTER_RATE_LIMIT_PER_MINUTE: '1000000',
        POLYMARKET_GAMMA_URL: emulator.gammaUrl,
        POLYMARKET_CLOB_URL: emulator.clobUrl,
        POLYMARKET_DATA_URL: emulator.dataUrl,
        POLYGON_RPC_URL: emulator.rpcUrl,
      },
      { memoryDatabase: cfg.memoryDatabase },
    );
    const { pid } = stack;
    const markets = [...emulator.state.markets.values()]
      .filter((m) => m.active && !m.closed && !m.resolution && m.acceptingOrders)
      .map((m) => m.conditionId)
      .sort()
      .slice(0, cfg.markets);
    const whales = whaleWallets(cfg.wallets);
    const lists = watchlists(cfg);
    const watching = lists.map((list) => new Set(list.map((w) => whales[w]!)));
    const watchers = new Map<number, number[]>();
    lists.forEach((list, agent) => list.forEach((w) => watchers.set(w, [...(watchers.get(w) ?? []), agent])));

    let t0 = performance.now();
    const keys = await registerAgents(stack, cfg.agents);
    const register = (performance.now() - t0) / 1000;
    t0 = performance.now();
    await configureAgents(stack, keys, lists, whales);
    const config = (performance.now() - t0) / 1000;
    log(
      `[reactor] ${cfg.agents} agents registered in ${register.toFixed(1)} s, configured in ${config.toFixed(1)} s`,
    );

    const idle = await sampleService(pid, cfg.idleSeconds * 1000);
    log(`[reactor] idle, no stream: RSS ${idle.rssMiB} MiB, CPU ${idle.cpuPercent} %`);

    // Every SSE event by measured fill: when it arrived, and whether its agent watches the wallet.
    const received = new Map<string, number[]>();
    let sseEvents = 0;
    let misdelivered = 0;
    let measuring = false;
    t0 = performance.now();
    streams = await openSseClients(stack.baseUrl, '/api/sdk/reactor/stream', keys, (client, e) => {
      if (e.event !== 'reactor_event' || !measuring) return;
      const data = JSON.parse(e.data) as { tx_hash?: string; whale_wallet?: string };
      const hash = data.tx_hash?.toLowerCase();
      if (!hash) return;
      sseEvents++;
      if (!watching[client]!.has(String(data.whale_wallet).toLowerCase())) misdelivered++;
      const times = received.get(hash);
      if (times) times.push(e.receivedAt);
      else received.set(hash, [e.receivedAt]);
    });
    const streamsSeconds = (performance.now() - t0) / 1000;
    const opened = streams.open();
    log(
      `[reactor] ${opened} streams open in ${streamsSeconds.toFixed(1)} s (${streams.failures().count} failed)`,
    );
    await sleep(2000);
    const idleWithStreams = await sampleService(pid, cfg.idleSeconds * 1000);
    log(
      `[reactor] idle, ${opened} streams: RSS ${idleWithStreams.rssMiB} MiB, CPU ${idleWithStreams.cpuPercent} %`,
    );

    const random = prng(cfg.seed + 1);
    // Warm-up: the Reactor imports each market on its first fill; those signals are not measured.
    await makeFills(emulator, whales, markets, cfg, cfg.warmUpSeconds, random);
    await sleep(cfg.blockMs + 2000);
    await drainQueues(stack.redisUrl);
    await sleep(1000);

    measuring = true;
    const windowStart = Date.now();
    let rssPeak = 0;
    const rssTimer = setInterval(() => (rssPeak = Math.max(rssPeak, rssBytes(pid) ?? 0)), 500);
    const c0 = cpuSeconds(pid) ?? 0;
    const w0 = performance.now();
    // This process (the emulator and the SSE clients): its own load and how late its event loop ran.
    const benchCpu0 = process.cpuUsage();
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    loopDelay.enable();
    const {
      result: { sent, errors, elapsedSeconds, signalsExpected },
      cpuSeconds: stackCpu,
    } = await withStackCpu(async () => {
      const made = await makeFills(emulator, whales, markets, cfg, cfg.seconds, random);
      const expected = made.sent.reduce((n, f) => n + (watchers.get(f.wallet)?.length ?? 0), 0);
      // The last block, the feed's next poll, the jobs and the streams: until every event is in.
      await settle(() => sseEvents, expected, 5_000, 30_000);
      return { ...made, signalsExpected: expected };
    });
    loopDelay.disable();
    const measured = new Set(sent.map((f) => f.hash));
    const wallSeconds = (performance.now() - w0) / 1000;
    const benchCpu = process.cpuUsage(benchCpu0);
    if (cpuSeconds(pid) === null)
      throw new Error('the service exited during the fills (BENCH_SERVICE_LOG=<file> keeps what it printed)');
    const cpu = (cpuSeconds(pid)! - c0) / wallSeconds;
    clearInterval(rssTimer);
    const load = {
      rssMiB: MiB(rssBytes(pid)),
      rssPeakMiB: MiB(rssPeak),
      cpuPercent: Math.round(cpu * 1000) / 10,
    };
    measuring = false;

    const mined = minedAt(emulator, sent);
    const blocks = new Set(
      sent.map((f) => emulator.chain.txs.get(f.hash)?.blockNumber).filter((n) => n !== undefined),
    );
    const toSse: number[] = [];
    for (const [hash, times] of received) {
      const at = mined.get(hash);
      if (at !== undefined && measured.has(hash)) for (const t of times) toSse.push(t - at);
    }
    const conn = await connectMongo(stack.mongoUri, 'agent_trading');
    const toSignal: number[] = [];
    const toPublished: number[] = [];
    const toFill: number[] = [];
    let signalsFound = 0;
    try {
      const since = new Date(windowStart - 60_000);
      const signals = conn.db!.collection('reactor_signals').find({ createdAt: { $gte: since } });
      for (const doc of await signals.toArray()) {
        const hash = signalTxHash(doc);
        const at = hash === undefined ? undefined : mined.get(hash);
        if (at === undefined || !measured.has(hash!)) continue;
        signalsFound++;
        toSignal.push(asMs(doc.createdAt) - at);
        if (doc.publishedAt) toPublished.push(asMs(doc.publishedAt) - at);
      }
      // The whale's own leg of each fill (the crowd's maker leg is stored too, unwatched).
      for (const doc of await conn
        .db!.collection('venue_fills')
        .find({ recordedAt: { $gte: since } })
        .toArray()) {
        const hash = String(doc.txHash).toLowerCase();
        const at = mined.get(hash);
        if (at !== undefined && measured.has(hash) && doc.leg === 'taker')
          toFill.push(asMs(doc.recordedAt) - at);
      }
    } finally {
      await conn.close();
    }
    const failures = streams.failures();
    if (misdelivered)
      log(`[reactor] ${misdelivered} SSE events reached an agent that does not watch the wallet`);
    const results: ReactorResults = {
      agents: cfg.agents,
      walletsPerAgent: cfg.walletsPerAgent,
      wallets: cfg.wallets,
      markets: markets.length,
      fillRate: cfg.fillRate,
      seconds: cfg.seconds,
      blockMs: cfg.blockMs,
      configVia: 'api',
      database: cfg.memoryDatabase ? 'memory' : 'h2 file',
      setupSeconds: { register, config, streams: streamsSeconds },
      fills: sent.length,
      fillErrors: errors,
      fillRateMade: Math.round((sent.length / elapsedSeconds) * 10) / 10,
      misdelivered,
      loadSeconds: Math.round(wallSeconds * 10) / 10,
      stackCpuPercent: Object.fromEntries(
        Object.entries(stackCpu).map(([kind, sec]) => [kind, Math.round((sec / wallSeconds) * 1000) / 10]),
      ),
      benchProcess: {
        cpuPercent: Math.round(((benchCpu.user + benchCpu.system) / 1e6 / wallSeconds) * 1000) / 10,
        loopDelayP99Ms: Math.round(loopDelay.percentile(99) / 1e5) / 10,
      },
      fillsPerBlock: blocks.size ? Math.round((sent.length / blocks.size) * 10) / 10 : NaN,
      signalsExpected,
      signalsFound,
      sseEvents,
      ...(toFill.length ? { toFill: latency(toFill) } : {}),
      toSignal: latency(toSignal),
      ...(toPublished.length ? { toPublished: latency(toPublished) } : {}),
      toSse: latency(toSse),
      streams: {
        open: opened,
        failed: failures.count,
        ...(failures.first ? { firstFailure: failures.first } : {}),
      },
      service: { idle, idleWithStreams, load },
    };
    log(
      `[reactor] ${sent.length} fills → ${signalsFound}/${signalsExpected} signals, ${sseEvents} SSE events; ` +
        `mined → signal p50 ${results.toSignal.p50} / p99 ${results.toSignal.p99} ms, ` +
        `mined → SSE p50 ${results.toSse.p50} / p99 ${results.toSse.p99} ms`,
    );
    return results;
  } finally {
    streams?.close();
    await stack?.stop();
    await emulator.close();
  }
}

if (isMain(import.meta.url)) {
  const results = await runReactorBench();
  console.log(`\n${reactorTable(results)}`);
}
