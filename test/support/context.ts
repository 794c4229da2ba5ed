import type { Express } from 'express';
import type { Worker } from 'bullmq';
import type { Env } from '../../shared/infra/config/env.js';
import type { Deps } from '../../shared/composition/deps.js';
import type { KalshiEmulator } from '../emulators/kalshi/index.js';
import type { PolymarketEmulator } from '../emulators/polymarket/index.js';
import type { BinanceEmulator } from '../emulators/binance/index.js';
import type { EmbeddedServer } from '../../shared/infra/embedded/redis-server.js';

/** What the root hooks set up once per run: real Redis, a real MongoDB-wire server, workers, the app. */
export interface TestContext {
  env: Env;
  deps: Deps;
  app: Express;
  workers: Worker[];
  operatorToken: string;
  /**
   * The Polymarket emulator the adapters of this run talk to (admin API at `adminUrl`), with its
   * Polygon JSON-RPC at `rpcUrl` (= env POLYGON_RPC_URL) over the same ledger.
   */
  polymarket: PolymarketEmulator;
  /** The Kalshi emulator (Kalshi market data, DFlow, Proof, Solana RPC; admin API at `adminUrl`). */
  kalshi: KalshiEmulator;
  /** The Binance market-data emulator (klines of the deterministic price path; = env BINANCE_BASE_URL). */
  binance: BinanceEmulator;
  servers: EmbeddedServer[];
  /** Values for child processes that need their own copy of this run's infrastructure. */
  redisUrl: string;
  mongoUri: string;
}

let current: TestContext | undefined;

export function setTestContext(ctx: TestContext | undefined): void {
  current = ctx;
}

export function testContext(): TestContext {
  if (!current)
    throw new Error('test context is not ready: the root hooks in test/support/hooks.ts did not run');
  return current;
}
