import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { freePort } from '../../shared/infra/embedded/child-process.js';
import { testContext } from './context.js';

const root = resolve(import.meta.dirname, '../..');

/** Runs `npm run start:workers`' program on this run's Redis/MongoDB, killing itself after `killAfterWrites` writes. */
export async function runWorkerProcess(
  prefix: string,
  killAfterWrites: number | null,
  until: () => Promise<boolean>,
  /** WORKER_QUEUES: one queue name or a comma-separated list. */
  queue = 'trades',
  extraEnv: Record<string, string> = {},
): Promise<'killed' | 'done'> {
  const ctx = testContext();
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    NODE_ENV: 'test',
    REDIS_URL: ctx.redisUrl,
    ...(ctx.env.REDIS_CLUSTER_NODES ? { REDIS_CLUSTER_NODES: ctx.env.REDIS_CLUSTER_NODES } : {}),
    MONGODB_URI: ctx.mongoUri,
    MONGODB_DB: ctx.env.MONGODB_DB,
    QUEUE_PREFIX: prefix,
    WORKER_QUEUES: queue,
    WORKER_LOCK_DURATION_MS: '1000',
    WORKER_MAX_STALLED_COUNT: '100',
    PORT: String(await freePort()),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    DATA_DIR: ctx.env.DATA_DIR,
  };
  Object.assign(env, extraEnv);
  if (killAfterWrites !== null) env.FAULT_KILL_AFTER_WRITES = String(killAfterWrites);
  const child = spawn(process.execPath, ['--import', 'tsx', 'workers/main.ts'], {
    cwd: root,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c) => (stderr += c));
  const exited = new Promise<NodeJS.Signals | number | null>((r) =>
    child.once('exit', (code, signal) => r(signal ?? code)),
  );
  const deadline = Date.now() + 30_000;
  for (;;) {
    const result = await Promise.race([
      exited.then((s) => ({ s })),
      new Promise<null>((r) => setTimeout(() => r(null), 100)),
    ]);
    if (result) {
      assert.equal(result.s, 'SIGKILL', `worker exited by itself (${String(result.s)}): ${stderr}`);
      return 'killed';
    }
    if (await until()) {
      child.kill('SIGTERM');
      await exited;
      return 'done';
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`worker made no progress: ${stderr}`);
    }
  }
}
