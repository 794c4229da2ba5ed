// `npm run bench:trades`: sim trade throughput and latency against the all-in-one service on this
// machine (embedded default: its own redis-server and mongo-java-server on an H2 file), next to its
// floors in the same run: a bare HTTP endpoint and a no-op job round trip through BullMQ. Closed-loop
// rows at each connection count, then the latency curve: trades and the no-op floor paced at each
// offered load. Part of `npm run bench` (bench/run-all.ts); prints its tables when run alone.
import { tradeConfig } from './config.js';
import { isMain } from '../shared/infra/process/is-main.js';
import {
  BARE_HTTP,
  bareHttpRequest,
  BENCH_MAX_TRADES_PER_DAY,
  drainQueues,
  httpLoad,
  listMarketIds,
  noOpRoundTrips,
  registerAgents,
  tradeRequest,
  TRADING_BENCH_ENV,
} from './measure.js';
import { tradeTables } from './report.js';
import { withStackCpu, type ProcessKind } from './process-cpu.js';
import { startStack } from './stack.js';
import type { TradeResults } from './results.js';
import { runSplitTradeBench } from './split-trades.js';

export async function runTradeBench(cfg = tradeConfig, log = console.log): Promise<TradeResults> {
  const results = await runOneProcessTradeBench(cfg, log);
  // The same load with the roles split across processes, once the all-in-one stack has stopped.
  if (cfg.split.enabled) results.split = await runSplitTradeBench(cfg, log);
  return results;
}

async function runOneProcessTradeBench(
  cfg: typeof tradeConfig,
  log: typeof console.log,
): Promise<TradeResults> {
  // The bench measures the trade path: each agent buys the same two market sides over and over,
  // which the free tier's cooldowns and daily limit would refuse (the admission script still runs).
  const stack = await startStack(TRADING_BENCH_ENV);
  try {
    const { baseUrl, redisUrl } = stack;
    const keys = await registerAgents(baseUrl, cfg.agents, 'bench', BENCH_MAX_TRADES_PER_DAY);
    const markets = await listMarketIds(baseUrl, keys[0]!, cfg.markets);
    const trades = tradeRequest(keys, markets);
    const tradeName = (suffix: string) =>
      `sim trade, ${cfg.agents} agents × ${markets.length} markets${suffix}`;
    log(`[trades] ${cfg.agents} agents, ${markets.length} markets; warming up ${cfg.warmUpSeconds} s`);
    await httpLoad('warm-up', { seconds: cfg.warmUpSeconds, connections: 16 }, baseUrl, trades);
    await drainQueues(redisUrl);

    const bareHttp = await httpLoad(
      BARE_HTTP,
      { seconds: cfg.seconds, connections: cfg.connections[0]! },
      baseUrl,
      bareHttpRequest,
    );
    log(`[trades] bare HTTP: ${Math.round(bareHttp.rps)} req/s`);
    const closed: TradeResults['closed'] = [];
    for (const connections of cfg.connections) {
      const load = { seconds: cfg.seconds, connections };
      const noOp = await noOpRoundTrips(redisUrl, load);
      // What each kind of process spent per trade: the profile that says where the time goes.
      const { result: trade, cpuSeconds } = await withStackCpu(() =>
        httpLoad(tradeName(''), load, baseUrl, trades),
      );
      await drainQueues(redisUrl);
      const cpuMsPerTrade = perTrade(cpuSeconds, trade.rps * cfg.seconds);
      closed.push({ connections, noOp, trade, cpuMsPerTrade });
      log(
        `[trades] ${connections} connections: no-op ${Math.round(noOp.rps)}/s, trades ${Math.round(trade.rps)}/s; ` +
          `CPU ms per trade: ${Object.entries(cpuMsPerTrade)
            .map(([kind, ms]) => `${kind} ${ms.toFixed(1)}`)
            .join(', ')}`,
      );
    }
    const curve: TradeResults['curve'] = [];
    for (const rate of cfg.rates) {
      const load = { seconds: cfg.seconds, connections: cfg.pacedConnections, rate };
      const noOp = await noOpRoundTrips(redisUrl, load);
      const trade = await httpLoad(tradeName(` paced at ${rate}/s`), load, baseUrl, trades);
      await drainQueues(redisUrl);
      curve.push({ rate, noOp, trade });
      log(`[trades] paced at ${rate}/s: no-op p99 ${noOp.p99} ms, trades p99 ${trade.p99} ms`);
    }
    return {
      seconds: cfg.seconds,
      agents: cfg.agents,
      markets: markets.length,
      bareHttp,
      closed,
      curve,
    };
  } finally {
    await stack.stop();
  }
}

/** CPU seconds by kind over `trades` trades, as milliseconds per trade. */
const perTrade = (cpu: Partial<Record<ProcessKind, number>>, trades: number) =>
  Object.fromEntries(
    Object.entries(cpu).map(([kind, seconds]) => [kind, (seconds * 1000) / Math.max(trades, 1)]),
  ) as Partial<Record<ProcessKind, number>>;

if (isMain(import.meta.url)) {
  const results = await runTradeBench();
  console.log(`\n${tradeTables(results)}`);
}
