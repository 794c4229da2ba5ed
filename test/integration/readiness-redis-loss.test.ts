import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'bullmq';
import type { Express } from 'express';
import request from 'supertest';
import { buildApp } from '../../api/app.js';
import { closeDeps, createDeps } from '../../shared/composition/create-deps.js';
import type { Deps } from '../../shared/composition/deps.js';
import { startWorkers, stopWorkers } from '../../shared/composition/worker-pool.js';
import { startRedisServer, type EmbeddedServer } from '../../shared/infra/embedded/redis-server.js';
import { createLogger } from '../../shared/infra/logger.js';
import { PROCESSORS } from '../../workers/registry.js';
import { testContext } from '../support/context.js';

/**
 * Issue 23: GET /healthz/ready said the queue was ok while Redis was down (the last round trip's
 * answer is kept a few seconds, so that probes do not fill the queue with ping jobs).
 */
describe('GET /healthz/ready when Redis dies #integration', function () {
  this.timeout(60_000);
  let dir: string;
  let redis: EmbeddedServer;
  let deps: Deps;
  let workers: Worker[];
  let app: Express;
  const log = createLogger('silent', 'test');

  // A service with a Redis of its own (this run's database), so that Redis can die without taking
  // the rest of the suite with it; a worker on the system queue answers the round trip.
  before(async () => {
    const ctx = testContext();
    dir = mkdtempSync(join(tmpdir(), 'ats-ready-redis-'));
    redis = await startRedisServer({ dir, persistent: false, log });
    deps = await createDeps(ctx.env, { redisUrl: redis.url, mongoUri: ctx.mongoUri }, log);
    workers = startWorkers(deps, PROCESSORS, ['system']);
    app = buildApp(deps, { operatorToken: ctx.operatorToken });
  });

  after(async () => {
    // Back on its port, so that the clients' connections close instead of reconnecting forever.
    redis = await startRedisServer({ dir, persistent: false, log, port: Number(new URL(redis.url).port) });
    // A worker's close can hang on its reconnected blocking read (as QueueEvents' does): bounded.
    const bounded = (p: Promise<unknown>) =>
      Promise.race([p.catch(() => undefined), new Promise((r) => setTimeout(r, 3000))]);
    await bounded(stopWorkers(workers, 1000));
    await bounded(closeDeps(deps));
    await redis.child.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('when Redis is killed right after a ready answer, then the next probe says redis and queue are down (503)', async () => {
    const up = await request(app).get('/healthz/ready');
    assert.equal(up.status, 200, JSON.stringify(up.body));
    assert.equal(up.body.checks.queue, 'ok');

    redis.child.process.kill('SIGKILL');
    await new Promise((r) => redis.child.process.once('exit', r));

    const down = await request(app)
      .get('/healthz/ready')
      .set('Authorization', `Bearer ${testContext().operatorToken}`);
    assert.equal(down.status, 503, JSON.stringify(down.body));
    assert.equal(down.body.checks.redis, 'down');
    assert.equal(down.body.checks.queue, 'down', JSON.stringify(down.body.details));
    assert.match(down.body.details.queue.error, /\S/);
  });
});
