// The 2 + 2-process row of the trade bench (issue 27, item 5): the same trade load as the
// all-in-one rows (closed loop at 16 and 64 connections, paced at 100/s) against the compose
// topology run as separate processes on this machine: two API processes (the load spread over
// both), two worker processes and a jobs process, on one Redis and one database. Run by
// bench/trades.bench.ts after the one-process rows; `BENCH_TRADE_SPLIT=0` leaves it out.
import { tradeConfig } from './config.js';
import {
  BENCH_MAX_TRADES_PER_DAY,
  drainQueues,
  httpLoadSpread,
  listMarketIds,
  registerAgents,
  tradeRequest,
  TRADING_BENCH_ENV,
} from './measure.js';
import type { SplitTradeResults } from './results.js';
import { startSplitStack } from './stack.js';

export async function runSplitTradeBench(cfg = tradeConfig, log = console.log): Promise<SplitTradeResults> {
  const counts = { apis: cfg.split.apis, workers: cfg.split.workers };
  const stack = await startSplitStack(TRADING_BENCH_ENV, counts);
  try {
    const { baseUrls, redisUrl } = stack;
    const keys = await registerAgents(baseUrls[0]!, cfg.agents, 'bench', BENCH_MAX_TRADES_PER_DAY);
    const markets = await listMarketIds(baseUrls[0]!, keys[0]!, cfg.markets);
    const trades = tradeRequest(keys, markets);
    const name = (suffix: string) =>
      `sim trade, ${counts.apis} API + ${counts.workers} worker processes${suffix}`;
    log(`[trades ${counts.apis}+${counts.workers}] warming up ${cfg.warmUpSeconds} s`);
    await httpLoadSpread('warm-up', { seconds: cfg.warmUpSeconds, connections: 16 }, baseUrls, trades);
    await drainQueues(redisUrl);
    const closed: SplitTradeResults['closed'] = [];
    for (const connections of cfg.split.connections) {
      const trade = await httpLoadSpread(name(''), { seconds: cfg.seconds, connections }, baseUrls, trades);
      await drainQueues(redisUrl);
      closed.push({ connections, trade });
      log(`[trades ${counts.apis}+${counts.workers}] ${connections} connections: ${Math.round(trade.rps)}/s`);
    }
    const paced: SplitTradeResults['paced'] = [];
    for (const rate of cfg.split.rates) {
      const load = { seconds: cfg.seconds, connections: cfg.pacedConnections, rate };
      const trade = await httpLoadSpread(name(` paced at ${rate}/s`), load, baseUrls, trades);
      await drainQueues(redisUrl);
      paced.push({ rate, trade });
      log(`[trades ${counts.apis}+${counts.workers}] paced at ${rate}/s: p99 ${trade.p99} ms`);
    }
    return { ...counts, jobs: 1, seconds: cfg.seconds, closed, paced };
  } finally {
    await stack.stop();
  }
}
