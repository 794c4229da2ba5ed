// The cold-start check of `npm run bench`: how long does the first trade take, right after the
// service has started, and after it has been idle for BENCH_IDLE_SECONDS (600 s; 5 s in quick mode)?
// The all-in-one service on its embedded default (as `npm start`), one agent, one trade at a time.
import { coldStartConfig } from './config.js';
import { isMain } from '../shared/infra/process/is-main.js';
import {
  BENCH_MAX_TRADES_PER_DAY,
  listMarketIds,
  postJson,
  quantile,
  registerAgents,
  TRADING_BENCH_ENV,
} from './measure.js';
import { coldStartTable } from './report.js';
import { startStack } from './stack.js';
import type { ColdStartResults } from './results.js';

export async function runColdStart(cfg = coldStartConfig, log = console.log): Promise<ColdStartResults> {
  const stack = await startStack(TRADING_BENCH_ENV);
  try {
    const { baseUrl } = stack;
    const [key] = await registerAgents(baseUrl, 1, 'bench-cold', BENCH_MAX_TRADES_PER_DAY);
    const markets = await listMarketIds(baseUrl, key!, 2);
    let n = 0;
    const timedTrade = async () => {
      const body = { market_id: markets[n % markets.length], side: n++ % 2 ? 'no' : 'yes', amount: 1 };
      const t0 = performance.now();
      const r = await postJson(`${baseUrl}/api/sdk/trade`, body, key);
      const text = await r.text();
      const ms = performance.now() - t0;
      if (!r.ok) throw new Error(`cold-start trade: ${r.status} ${text}`);
      return Math.round(ms * 10) / 10;
    };
    const firstAfterStartMs = await timedTrade();
    log(`[cold start] first trade after start: ${firstAfterStartMs} ms; idle ${cfg.idleSeconds} s…`);
    await new Promise((r) => setTimeout(r, cfg.idleSeconds * 1000));
    const firstAfterIdleMs = await timedTrade();
    const warm: number[] = [];
    for (let i = 0; i < 10; i++) warm.push(await timedTrade());
    warm.sort((a, b) => a - b);
    const warmMs = quantile(warm, 0.5);
    log(`[cold start] first trade after idle: ${firstAfterIdleMs} ms (warm ${warmMs} ms)`);
    return { idleSeconds: cfg.idleSeconds, firstAfterStartMs, firstAfterIdleMs, warmMs };
  } finally {
    await stack.stop();
  }
}

if (isMain(import.meta.url)) {
  const results = await runColdStart();
  console.log(`\n${coldStartTable(results)}`);
}
