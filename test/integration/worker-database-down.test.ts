import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '../../shared/infra/embedded/child-process.js';
import { startMongoServer } from '../../shared/infra/embedded/mongo-server.js';
import type { EmbeddedServer } from '../../shared/infra/embedded/redis-server.js';
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

/**
 * The database side of worker-redis-down.test.ts: a process used to give up on its database after
 * 30 s at start ("could not start"), while it waited for Redis without end. Now both wait with
 * backoff (250 ms doubling to 10 s), each wait logged.
 */
describe('a worker process started while the database is down #integration', function () {
  this.timeout(120_000);

  it('when the database is down at its start for longer than 30 s, then it waits and retries (each wait logged) and comes up once the database is started', async () => {
    const ctx = testContext();
    const mongoPort = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'worker-database-down-'));
    const startedAt = Date.now();
    const worker = spawn(process.execPath, ['--import', 'tsx', 'workers/main.ts'], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        NODE_ENV: 'test',
        REDIS_URL: ctx.redisUrl,
        MONGODB_URI: `mongodb://127.0.0.1:${mongoPort}`,
        MONGODB_DB: `worker_database_down_${process.pid}`,
        // Its own queues: it must not take other tests' jobs.
        QUEUE_PREFIX: `worker-database-down-${process.pid}`,
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
    let mongo: EmbeddedServer | undefined;
    try {
      const waits = () =>
        out.match(/the database is not reachable; waiting before trying again/g)?.length ?? 0;
      await until(
        'two logged waits for the database',
        () => waits() >= 2,
        45_000,
        () => out,
      );
      // Past the 30 s it used to give up after.
      await until(
        '35 s since its start',
        () => Date.now() - startedAt > 35_000,
        60_000,
        () => out,
      );
      assert.equal(worker.exitCode, null, `the worker is still running:\n${out}`);
      assert.doesNotMatch(out, /could not start|workers started/);
      const delays = [...out.matchAll(/"delayMs":(\d+)/g)].map((m) => Number(m[1]));
      assert.deepEqual(delays.slice(0, 3), [250, 500, 1000], 'the waits back off');
      mongo = await startMongoServer({
        dir,
        persistent: false,
        log: createLogger('silent', 'test'),
        port: mongoPort,
      });
      await until(
        'the workers start',
        () => out.includes('workers started'),
        40_000,
        () => out,
      );
      assert.match(out, /the database answers now/);
      worker.kill('SIGTERM');
      assert.equal(await exited, 0, `a clean stop after it came up:\n${out}`);
    } finally {
      if (worker.exitCode === null) worker.kill('SIGKILL');
      await mongo?.child.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
