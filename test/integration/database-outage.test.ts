import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import type { Express } from 'express';
import { buildApp } from '../../api/app.js';
import { closeDeps, createDeps } from '../../shared/composition/create-deps.js';
import type { Deps } from '../../shared/composition/deps.js';
import { seedCatalogue } from '../../shared/domains/markets/catalogue.js';
import { startMongoServer } from '../../shared/infra/embedded/mongo-server.js';
import type { EmbeddedServer } from '../../shared/infra/embedded/redis-server.js';
import { createLogger } from '../../shared/infra/logger.js';
import { capturingLogger } from '../support/capture.js';
import { testContext } from '../support/context.js';
import { api, randomIp } from '../support/http.js';

describe('a database outage on the request path #integration', function () {
  this.timeout(120_000);
  let dir: string;
  let mongo: EmbeddedServer;
  let deps: Deps;
  let app: Express;
  let key: string;
  let marketId: string;
  let logLines: string[];

  // A service of its own on a database of its own (this run's Redis and workers), so that the
  // database can die without taking the rest of the suite with it.
  before(async () => {
    const ctx = testContext();
    dir = mkdtempSync(join(tmpdir(), 'ats-db-outage-'));
    const log = createLogger('silent', 'test');
    mongo = await startMongoServer({ dir, persistent: false, log });
    const captured = capturingLogger('warn', 'test');
    logLines = captured.lines;
    deps = await createDeps(ctx.env, { redisUrl: ctx.redisUrl, mongoUri: mongo.url }, captured.log);
    await seedCatalogue(deps.models.Market, deps.clock());
    app = buildApp(deps, { operatorToken: ctx.operatorToken });
    const reg = await request(app)
      .post('/api/sdk/agents/register')
      .set('X-Forwarded-For', randomIp())
      .send({ name: 'outage' });
    assert.equal(reg.status, 200);
    key = reg.body.api_key;
    const market = await deps.models.Market.findOne({ status: 'active' }).lean();
    marketId = String(market!._id);
    mongo.child.process.kill('SIGKILL');
    await new Promise((r) => mongo.child.process.once('exit', r));
  });

  after(async () => {
    await closeDeps(deps).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  /** The cause the service logged with the 503 it answered to this request. */
  const loggedCause = (requestId: string, message: string) =>
    logLines
      .map((l) => JSON.parse(l) as { req?: { id?: string }; msg?: string; err?: { type?: string } })
      .find((l) => l.req?.id === requestId && l.msg === message)?.err;

  it('when the database is down, then a trade and a fresh read answer 503 with Retry-After from the driver’s first failure to reach it, never 500', async () => {
    // "At once": the answer is the driver's own failure to reach a server (a refused connection, or
    // server selection giving up after its timeout, configured below a second), surfaced as it
    // happens: not a buffered command, a socket timeout or a wait for the database to come back.
    const configured = deps.mongo.getClient().options.serverSelectionTimeoutMS;
    assert.equal(configured, testContext().env.MONGODB_SERVER_SELECTION_TIMEOUT_MS);
    assert.ok(configured < 1000, `server selection waits ${configured} ms`);
    for (let i = 0; i < 3; i++) {
      for (const [what, call] of [
        [
          'POST /api/sdk/trade',
          () =>
            request(app)
              .post('/api/sdk/trade')
              .set('Authorization', `Bearer ${key}`)
              .send({ market_id: marketId, side: 'yes', amount: 1 }),
        ],
        [
          'GET /api/sdk/agents/me',
          () => request(app).get('/api/sdk/agents/me').set('Authorization', `Bearer ${key}`),
        ],
      ] as const) {
        const res = await call();
        assert.equal(res.status, 503, `${what}: ${JSON.stringify(res.body)}`);
        assert.match(
          String(loggedCause(res.body.request_id, res.body.error)?.type),
          /^(MongoNetworkError|MongoServerSelectionError|MongooseServerSelectionError)$/,
          `${what}: the cause logged for ${res.body.request_id}`,
        );
        assert.match(String(res.headers['retry-after']), /^\d+$/);
        assert.equal(res.body.retryable, true);
        assert.equal(res.body.error_code, 'database_unavailable');
        assert.ok(res.body.fix);
        assert.doesNotMatch(JSON.stringify(res.body), /ECONNREFUSED|127\.0\.0\.1|Mongo/);
      }
    }
  });

  it('when the database is down, then GET /healthz/ready answers 503 with checks named ok or down and no internal details', async () => {
    const res = await request(app).get('/healthz/ready');
    assert.equal(res.status, 503);
    assert.deepEqual(Object.keys(res.body).sort(), ['checks', 'status']);
    assert.equal(res.body.status, 'unavailable');
    assert.deepEqual(res.body.checks, { mongodb: 'down', redis: 'ok', queue: 'ok' });
    assert.doesNotMatch(JSON.stringify(res.body), /ECONNREFUSED|127\.0\.0\.1|latency/);
  });

  it('when the operator token is sent, then GET /healthz/ready adds what failed', async () => {
    const res = await request(app)
      .get('/healthz/ready')
      .set('Authorization', `Bearer ${testContext().operatorToken}`);
    assert.equal(res.status, 503);
    assert.equal(res.body.checks.mongodb, 'down');
    assert.equal(res.body.details.mongodb.ok, false);
    assert.match(res.body.details.mongodb.error, /\S/);
    assert.equal(res.body.details.redis.ok, true);
  });
});

describe('GET /healthz/ready on a healthy service #integration', () => {
  const pingJobs = async () => {
    const system = testContext().deps.queues.queues.system;
    const jobs = await system.getJobs(['completed', 'active', 'waiting', 'failed']);
    return jobs.filter((j) => j?.name === 'ping').length;
  };

  it('when it is called repeatedly within a few seconds, then one queue round trip answers all of them', async () => {
    await api().get('/healthz/ready'); // may start a fresh round trip
    const before = await pingJobs();
    const answers = await Promise.all([1, 2, 3, 4, 5].map(() => api().get('/healthz/ready')));
    for (const res of answers) assert.equal(res.status, 200);
    const after = await pingJobs();
    assert.ok(after - before <= 1, `${after - before} ping jobs for 5 probes`);
  });

  it('when it is called without the operator token, then every check is ok and nothing else is said', async () => {
    const res = await api().get('/healthz/ready');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { status: 'ok', checks: { mongodb: 'ok', redis: 'ok', queue: 'ok' } });
  });
});
