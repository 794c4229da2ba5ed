import { randomBytes } from 'node:crypto';
import { Wallet } from 'ethers';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../api/app.js';
import { seedCatalogue } from '../../shared/domains/markets/catalogue.js';
import { loadEnv } from '../../shared/infra/config/env.js';
import { closeDeps, createDeps } from '../../shared/composition/create-deps.js';
import type { ExtraVenue } from '../../shared/composition/venues.js';
import { startMongoServer } from '../../shared/infra/embedded/mongo-server.js';
import { startRedisServer, type EmbeddedServer } from '../../shared/infra/embedded/redis-server.js';
import { createLogger } from '../../shared/infra/logger.js';
import { deleteMany, redisTargetOf, scanKeys } from '../../shared/infra/redis.js';
import { QUEUE_NAMES } from '../../shared/infra/queue/queues.js';
import { startWorkers, stopWorkers } from '../../shared/composition/worker-pool.js';
import { PROCESSORS } from '../../workers/registry.js';
import { startKalshiEmulator } from '../emulators/kalshi/index.js';
import { RELAYER_BUILDER_CREDENTIALS, startPolymarketEmulator } from '../emulators/polymarket/index.js';
import { startBinanceEmulator } from '../emulators/binance/index.js';
import { setTestContext, testContext } from './context.js';
import { blockOutboundNetwork } from './no-network.js';
import * as testVenues from './test-venues.js';

/**
 * Root hooks: one isolated environment per run. Redis and the MongoDB-wire server are started on
 * free ports (or taken from TEST_REDIS_URL / TEST_MONGODB_URI), with a database name and queue
 * prefix of this run's own, and removed again afterwards. TEST_REDIS_CLUSTER_NODES (`host:port,…`,
 * set by `npm run test:cluster`) runs the service on that Redis Cluster instead (REDIS_CLUSTER_NODES).
 */
const runId = randomBytes(4).toString('hex');
let tmp: string;

/** POL for the gas sponsor: enough for every managed wallet a run approves. */
export async function fundGasSponsor(adminUrl: string, address: string) {
  const res = await fetch(`${adminUrl}/polygon/accounts/${address}/fund`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ pol: 1_000_000 }),
  });
  if (!res.ok) throw new Error(`funding the gas sponsor: ${res.status} ${await res.text()}`);
}

export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    this.timeout(120_000);
    blockOutboundNetwork();
    tmp = mkdtempSync(join(tmpdir(), `ats-test-${runId}-`));
    const log = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent', 'test');
    const servers: EmbeddedServer[] = [];
    const clusterNodes = process.env.TEST_REDIS_CLUSTER_NODES || undefined;
    let redisUrl = clusterNodes
      ? redisTargetOf({ REDIS_CLUSTER_NODES: clusterNodes }).redisUrl
      : process.env.TEST_REDIS_URL;
    let mongoUri = process.env.TEST_MONGODB_URI;
    if (!redisUrl) {
      const redis = await startRedisServer({ dir: join(tmp, 'redis'), persistent: false, log });
      servers.push(redis);
      redisUrl = redis.url;
    }
    if (!mongoUri) {
      const mongo = await startMongoServer({ dir: join(tmp, 'mongo'), persistent: false, log });
      servers.push(mongo);
      mongoUri = mongo.url;
    }
    // The venues are emulated on loopback: the adapters talk to them over real HTTP.
    const polymarket = await startPolymarketEmulator();
    const kalshi = await startKalshiEmulator();
    const binance = await startBinanceEmulator();
    const operatorToken = randomBytes(24).toString('base64url');
    const gasSponsor = Wallet.createRandom();
    await fundGasSponsor(polymarket.adminUrl, gasSponsor.address);
    const env = loadEnv({
      NODE_ENV: 'test',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      DATA_DIR: join(tmp, 'data'),
      REDIS_URL: redisUrl,
      ...(clusterNodes ? { REDIS_CLUSTER_NODES: clusterNodes } : {}),
      MONGODB_URI: mongoUri,
      MONGODB_DB: `test_${runId}`,
      QUEUE_PREFIX: `test-${runId}`,
      OPERATOR_TOKEN: operatorToken,
      // Tests act as many clients from one machine: they send X-Forwarded-For, trusted from loopback.
      TRUST_PROXY: 'loopback',
      PUBLIC_BASE_URL: 'http://localhost:8080',
      READY_TIMEOUT_MS: '5000',
      // Tests read what they just wrote; the shared read cache has its own test.
      READ_CACHE_SECONDS: '0',
      // The money-stress tests buy one market side many times in a row; the cooldowns have their
      // own tests (limits.test.ts), which turn them on for their duration.
      SIM_COOLDOWN_SECONDS: '0',
      FAILED_TRADE_COOLDOWN_SECONDS: '0',
      POLYMARKET_GAMMA_URL: polymarket.gammaUrl,
      POLYMARKET_CLOB_URL: polymarket.clobUrl,
      POLYMARKET_DATA_URL: polymarket.dataUrl,
      // The chain stand-in shares the emulator's ledger (test/emulators/polygon).
      POLYGON_RPC_URL: polymarket.rpcUrl,
      // Deposit wallets go through the emulated relayer, which knows this builder key.
      POLYMARKET_RELAYER_URL: polymarket.relayerUrl,
      POLYMARKET_BUILDER_API_KEY: RELAYER_BUILDER_CREDENTIALS.key,
      POLYMARKET_BUILDER_SECRET: RELAYER_BUILDER_CREDENTIALS.secret,
      POLYMARKET_BUILDER_PASSPHRASE: RELAYER_BUILDER_CREDENTIALS.passphrase,
      // The operator’s gas tank for managed wallets’ approvals, funded on the emulated chain above.
      POLYGON_GAS_SPONSOR_KEY: gasSponsor.privateKey,
      // Kalshi market data, DFlow, Proof and the Solana RPC share one emulator (test/emulators/kalshi).
      KALSHI_BASE_URL: kalshi.kalshiUrl,
      DFLOW_TRADE_API_URL: kalshi.dflowTradeUrl,
      DFLOW_METADATA_API_URL: kalshi.dflowMetadataUrl,
      DFLOW_PROOF_API_URL: kalshi.proofUrl,
      SOLANA_RPC_URL: kalshi.rpcUrl,
      // Candles come from the Binance emulator's price path (test/emulators/binance).
      BINANCE_BASE_URL: binance.url,
      // Fail fast against the emulator's injected faults; the breaker recovers within a test.
      VENUE_TIMEOUT_MS: '1000',
      VENUE_RETRIES: '1',
      VENUE_BREAKER_COOLDOWN_MS: '1000',
      // Webhook receivers in tests listen on 127.0.0.1; retries are quick (webhooks.test.ts).
      WEBHOOK_ALLOW_LOOPBACK: 'true',
      WEBHOOK_RETRY_BASE_MS: '10',
      WEBHOOK_TIMEOUT_MS: '2000',
    });
    const extraVenues: ExtraVenue[] = Object.values(testVenues);
    const deps = await createDeps(env, { ...redisTargetOf(env), mongoUri }, log, { extraVenues });
    await seedCatalogue(deps.models.Market, deps.clock());
    const workers = startWorkers(deps, PROCESSORS, [...QUEUE_NAMES]);
    await Promise.all(workers.map((w) => w.waitUntilReady()));
    setTestContext({
      env,
      deps,
      app: buildApp(deps, { operatorToken }),
      workers,
      operatorToken,
      polymarket,
      kalshi,
      binance,
      servers,
      redisUrl,
      mongoUri,
    });
  },

  async afterAll(this: Mocha.Context) {
    this.timeout(60_000);
    const ctx = testContext();
    await stopWorkers(ctx.workers, 5000);
    await Promise.all(
      Object.values(ctx.deps.queues.queues).map((q) => q.obliterate({ force: true }).catch(() => undefined)),
    );
    // The run's keys, on every master of a cluster; BullMQ's are under `{prefix}` there.
    const leftovers = [
      ...(await scanKeys(ctx.deps.redis, `${ctx.env.QUEUE_PREFIX}*`)),
      ...(await scanKeys(ctx.deps.redis, `{${ctx.env.QUEUE_PREFIX}*`)),
    ];
    await deleteMany(ctx.deps.redis, leftovers);
    await ctx.deps.mongo.dropDatabase();
    await closeDeps(ctx.deps);
    for (const server of ctx.servers) await server.child.stop();
    await ctx.polymarket.close();
    await ctx.kalshi.close();
    await ctx.binance.close();
    setTestContext(undefined);
    rmSync(tmp, { recursive: true, force: true });
  },
};
