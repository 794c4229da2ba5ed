import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '../../shared/infra/embedded/child-process.js';
import { startRedisServer, type EmbeddedServer } from '../../shared/infra/embedded/redis-server.js';
import { createLogger } from '../../shared/infra/logger.js';
import { testContext } from '../support/context.js';

const root = resolve(import.meta.dirname, '../..');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, check: () => boolean, timeoutMs: number, output: () => string) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms. Output:\n${output()}`);
    await sleep(100);
  }
}

describe('a worker process started while Redis is down #integration', function () {
  this.timeout(90_000);

  it('when Redis is down at its start, then it waits and retries, and comes up once Redis is started', async () => {
    const ctx = testContext();
    const redisPort = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'worker-redis-down-'));
    const worker = spawn(process.execPath, ['--import', 'tsx', 'workers/main.ts'], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        NODE_ENV: 'test',
        REDIS_URL: `redis://127.0.0.1:${redisPort}`,
        MONGODB_URI: ctx.mongoUri,
        MONGODB_DB: ctx.env.MONGODB_DB,
        // Its own queues: it must not take other tests' jobs.
        QUEUE_PREFIX: `worker-redis-down-${process.pid}`,
        WORKER_QUEUES: 'trades',
        PORT: String(await freePort()),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        DATA_DIR: ctx.env.DATA_DIR,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    worker.stdout.on('data', (c) => (out += c));
    worker.stderr.on('data', (c) => (out += c));
    const exited = new Promise<number | null>((r) => worker.once('exit', (code) => r(code)));
    let redis: EmbeddedServer | undefined;
    try {
      const waits = () => out.match(/Redis is not reachable; waiting before trying again/g)?.length ?? 0;
      await until(
        'two logged waits for Redis',
        () => waits() >= 2,
        45_000,
        () => out,
      );
      assert.equal(worker.exitCode, null, `the worker is still running:\n${out}`);
      assert.doesNotMatch(out, /workers started/);
      redis = await startRedisServer({
        dir,
        persistent: false,
        log: createLogger('silent', 'test'),
        port: redisPort,
      });
      await until(
        'the workers start',
        () => out.includes('workers started'),
        30_000,
        () => out,
      );
      assert.match(out, /Redis answers now/);
      worker.kill('SIGTERM');
      assert.equal(await exited, 0, `a clean stop after it came up:\n${out}`);
    } finally {
      if (worker.exitCode === null) worker.kill('SIGKILL');
      await redis?.child.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
