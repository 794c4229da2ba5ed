import assert from 'node:assert/strict';
import { freePort } from '../../shared/infra/embedded/child-process.js';
import { startRedisServer } from '../../shared/infra/embedded/redis-server.js';
import { testContext } from '../support/context.js';
import { spawnLoggedWorker } from '../support/logged-worker.js';

describe('a worker process started while Redis is down #integration', function () {
  this.timeout(90_000);

  it('when Redis is down at its start, then it waits and retries, and comes up once Redis is started', async () => {
    const ctx = testContext();
    const redisPort = await freePort();
    const worker = await spawnLoggedWorker('worker-redis-down', {
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      MONGODB_URI: ctx.mongoUri,
      MONGODB_DB: ctx.env.MONGODB_DB,
    });
    try {
      await worker.until(
        'two logged waits for Redis',
        () => worker.count(/Redis is not reachable; waiting before trying again/g) >= 2,
        45_000,
      );
      assert.ok(worker.running(), `the worker is still running:\n${worker.output()}`);
      assert.doesNotMatch(worker.output(), /workers started/);
      await worker.startServer(startRedisServer, redisPort);
      await worker.expectStartedThenStopped(/Redis answers now/, 30_000);
    } finally {
      await worker.dispose();
    }
  });
});
