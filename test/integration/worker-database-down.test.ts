import assert from 'node:assert/strict';
import { freePort } from '../../shared/infra/embedded/child-process.js';
import { startMongoServer } from '../../shared/infra/embedded/mongo-server.js';
import { testContext } from '../support/context.js';
import { spawnLoggedWorker } from '../support/logged-worker.js';

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
    const worker = await spawnLoggedWorker('worker-database-down', {
      REDIS_URL: ctx.redisUrl,
      MONGODB_URI: `mongodb://127.0.0.1:${mongoPort}`,
      MONGODB_DB: `worker_database_down_${process.pid}`,
    });
    try {
      await worker.until(
        'two logged waits for the database',
        () => worker.count(/the database is not reachable; waiting before trying again/g) >= 2,
        45_000,
      );
      // Past the 30 s it used to give up after.
      await worker.until('35 s since its start', () => Date.now() - worker.startedAt > 35_000, 60_000);
      assert.ok(worker.running(), `the worker is still running:\n${worker.output()}`);
      assert.doesNotMatch(worker.output(), /could not start|workers started/);
      const delays = [...worker.output().matchAll(/"delayMs":(\d+)/g)].map((m) => Number(m[1]));
      assert.deepEqual(delays.slice(0, 3), [250, 500, 1000], 'the waits back off');
      await worker.startServer(startMongoServer, mongoPort);
      await worker.expectStartedThenStopped(/the database answers now/, 40_000);
    } finally {
      await worker.dispose();
    }
  });
});
