// The database commands of one sim buy, counted by the MongoDB driver's command monitoring and split
// by role. One in-process run: the API role and the workers role each get their own composition
// root (Deps) with their own connection opened with `monitorCommands=true`, as separate API and
// worker processes would have, on a throw-away Redis and mongo-java-server (memory backend; the
// count does not depend on the backend). The jobs role (scheduler) is not started, so nothing
// else runs; the commands seen in an idle second before the buy are reported as background.
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { mongo } from 'mongoose';
import { apiRole } from '../api/server.js';
import { closeDeps, createDeps } from '../shared/composition/create-deps.js';
import type { Deps } from '../shared/composition/deps.js';
import type { RunningRole } from '../shared/composition/role.js';
import { loadEnv } from '../shared/infra/config/env.js';
import { freePort } from '../shared/infra/embedded/child-process.js';
import { startMongoServer } from '../shared/infra/embedded/mongo-server.js';
import { startRedisServer } from '../shared/infra/embedded/redis-server.js';
import { createLogger } from '../shared/infra/logger.js';
import { isMain } from '../shared/infra/process/is-main.js';
import { workersRole } from '../workers/main.js';
import {
  BENCH_MAX_TRADES_PER_DAY,
  listMarketIds,
  postJson,
  registerAgents,
  TRADING_BENCH_ENV,
} from './measure.js';
import { commandCountTable } from './report.js';
import type { CommandCount } from './results.js';

type Role = 'api' | 'worker';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `find agents`, `update positions`, … : the command and the collection it names, if any. */
function describe(ev: mongo.CommandStartedEvent): string {
  const target = ev.command[ev.commandName] as unknown;
  return typeof target === 'string' ? `${ev.commandName} ${target}` : ev.commandName;
}

export async function countCommandsPerBuy(batch = 16, log = console.log): Promise<CommandCount> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ats-bench-commands-'));
  const quiet = createLogger('silent', 'bench');
  const redisServer = await startRedisServer({ dir: join(dataDir, 'redis'), persistent: false, log: quiet });
  const mongoServer = await startMongoServer({ dir: join(dataDir, 'mongo'), persistent: false, log: quiet });
  const port = await freePort();
  const env = loadEnv({
    ...TRADING_BENCH_ENV,
    // The count is of a busy service's steady state, where every agent trades within its cached
    // entries' life: kept from expiring during the count (the default 5 s made the count depend on
    // how long the set-up took), so that it is the same on every run.
    LOCAL_CACHE_SECONDS: '60',
    NODE_ENV: 'production',
    OPERATOR_TOKEN: randomBytes(24).toString('hex'),
    JWT_SECRET: randomBytes(32).toString('hex'),
    SECRETS_MASTER_KEY: randomBytes(32).toString('hex'),
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    REDIS_URL: redisServer.url,
    MONGODB_URI: mongoServer.url,
  });
  const infra = { redisUrl: redisServer.url, mongoUri: `${mongoServer.url}/?monitorCommands=true` };
  const seen: { role: Role; command: string }[] = [];
  const roots: Deps[] = [];
  const running: RunningRole[] = [];
  try {
    for (const [role, processRole] of [
      ['api', apiRole],
      ['worker', workersRole],
    ] as const) {
      const deps = await createDeps(env, infra, quiet);
      roots.push(deps);
      deps.mongo.getClient().on('commandStarted', (ev: mongo.CommandStartedEvent) => {
        // The database watchdog's ping every 5 s (infra/mongo.ts watchMongo) is no part of a buy.
        if (ev.commandName === 'ping') return;
        seen.push({ role, command: describe(ev) });
      });
      running.push(await processRole.start(deps));
    }
    const baseUrl = `http://127.0.0.1:${port}`;
    const keys = await registerAgents(baseUrl, batch, 'bench-count', BENCH_MAX_TRADES_PER_DAY);
    const markets = await listMarketIds(baseUrl, keys[0]!, batch);
    const buy = async (i: number) => {
      const r = await postJson(
        `${baseUrl}/api/sdk/trade`,
        { market_id: markets[i % markets.length], side: 'yes', amount: 1 },
        keys[i],
      );
      const body = await r.text();
      if (!r.ok) throw new Error(`buy: ${r.status} ${body}`);
    };
    /** Waits until no command has started for 300 ms (a worker may still write after the answer). */
    const settle = async () => {
      for (let n = -1; n !== seen.length;) {
        n = seen.length;
        await sleep(300);
      }
    };
    // Every agent's first buy opens its position; the bench's agents keep buying the same sides.
    for (let i = 0; i < batch; i++) await buy(i);
    await settle();

    seen.length = 0;
    await sleep(1000);
    const backgroundPerSecond = seen.length;

    seen.length = 0;
    await buy(0);
    await settle();
    const byRole = (role: Role) => seen.filter((s) => s.role === role).map((s) => s.command);
    const apiCommands = byRole('api');
    const workerCommands = byRole('worker');

    seen.length = 0;
    await Promise.all(Array.from({ length: batch }, (_, i) => buy(i)));
    await settle();
    const perBuy = (role: Role) => Math.round((byRole(role).length / batch) * 10) / 10;
    /** `insert trades ×16`, …: the batch's commands by kind, most frequent first. */
    const tally = (role: Role) => {
      const counts = new Map<string, number>();
      for (const c of byRole(role)) counts.set(c, (counts.get(c) ?? 0) + 1);
      return [...counts].sort((a, b) => b[1] - a[1]).map(([c, n]) => `${c} ×${n}`);
    };
    const result: CommandCount = {
      api: apiCommands.length,
      worker: workerCommands.length,
      apiCommands,
      workerCommands,
      batch,
      apiPerBuyInBatch: perBuy('api'),
      workerPerBuyInBatch: perBuy('worker'),
      apiBatchCommands: tally('api'),
      workerBatchCommands: tally('worker'),
      backgroundPerSecond,
    };
    log(
      `[commands] one buy: API ${result.api}, worker ${result.worker}; ${batch} at once: ${result.apiPerBuyInBatch} + ${result.workerPerBuyInBatch} per buy`,
    );
    return result;
  } finally {
    for (const role of running.reverse()) await role.stop().catch(() => undefined);
    for (const deps of roots) await closeDeps(deps).catch(() => undefined);
    await redisServer.child.stop();
    await mongoServer.child.stop();
    rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
  }
}

if (isMain(import.meta.url)) {
  const result = await countCommandsPerBuy();
  console.log(`\n${commandCountTable(result)}`);
}
