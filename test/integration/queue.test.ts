import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { AppError } from '../../shared/infra/errors.js';
import { bullPrefix, connectRedis, createRedisConnection } from '../../shared/infra/redis.js';
import { QueueClient } from '../../shared/infra/queue/queue-client.js';
import { JOBS } from '../../shared/infra/queue/jobs.js';
import { selectQueues } from '../../shared/composition/worker-pool.js';
import { testContext } from '../support/context.js';
import { api } from '../support/http.js';

const nonce = () => randomBytes(9).toString('base64url');

describe('queue plumbing #integration', () => {
  it('when a job is enqueued and awaited, then the worker result comes back over the queue', async () => {
    const { deps } = testContext();
    const n = nonce();
    const outcome = await deps.queues.enqueueAndWait('ping', { nonce: n }, 5000);
    assert.equal(outcome.state, 'completed');
    assert.equal(outcome.jobId, `ping-${n}`);
    assert.equal((outcome as { result: { pong: string } }).result.pong, n);
  });

  it('when the same logical job is enqueued twice, then the deterministic id yields one job', async () => {
    const { deps } = testContext();
    const n = nonce();
    const [a, b] = await Promise.all([
      deps.queues.enqueue('ping', { nonce: n }),
      deps.queues.enqueue('ping', { nonce: n }),
    ]);
    assert.equal(a.id, b.id);
    assert.equal(a.id, `ping-${n}`);
  });

  it('when no worker consumes the queue before the deadline, then the wait answers pending with the job id', async () => {
    const { deps, env } = testContext();
    const lonely = new QueueClient(deps.redis, `${env.QUEUE_PREFIX}-noworkers`, deps.infra);
    try {
      const outcome = await lonely.enqueueAndWait('ping', { nonce: nonce() }, 300);
      assert.equal(outcome.state, 'pending');
      assert.match(outcome.jobId, /^ping-/);
    } finally {
      await Promise.all(Object.values(lonely.queues).map((q) => q.obliterate({ force: true })));
      await lonely.close();
    }
  });

  it('when a payload does not match the job schema, then the producer refuses it and the worker fails it without retry', async () => {
    const { deps, env } = testContext();
    await assert.rejects(
      deps.queues.enqueue('ping', { nonce: 'bad nonce!' }),
      (err: unknown) => err instanceof AppError && err.code === 'invalid_job',
    );
    // Bypass the producer, as an old deploy or a hand-made job would.
    const connection = createRedisConnection(deps.infra, 'retrying', 'test-raw-queue');
    const raw = new Queue('system', { connection, prefix: bullPrefix(env.QUEUE_PREFIX, deps.infra) });
    try {
      const job = await raw.add('ping', { nonce: 'x' }, { attempts: 3, jobId: `ping-raw-${nonce()}` });
      for (let i = 0; i < 50 && !(await job.isFailed()); i++) await new Promise((r) => setTimeout(r, 100));
      const failed = await raw.getJob(job.id!);
      assert.equal(await failed!.getState(), 'failed');
      assert.match(failed!.failedReason, /Invalid payload for ping/);
      assert.equal(failed!.attemptsMade, 1, 'an unrecoverable failure is not retried');
    } finally {
      await raw.close();
      connection.disconnect();
    }
  });

  it('when a trade job names a trade that does not exist, then the worker fails it for good on its first attempt', async () => {
    const { deps } = testContext();
    const tradeId = randomUUID();
    const outcome = await deps.queues.enqueueAndWait('execute-trade', { tradeId }, 5000);
    assert.equal(outcome.state, 'failed');
    assert.match((outcome as { reason: string }).reason, new RegExp(`Trade ${tradeId} not found`));
    const job = await deps.queues.findJob('execute-trade', { tradeId });
    assert.equal(job!.attemptsMade, 1, 'a job that can never succeed is not retried');
  });

  it('when Redis is unreachable for the producer, then enqueue fails at once with a retryable 503', async () => {
    const { deps, env } = testContext();
    const conn = await connectRedis(deps.infra, 'fail-fast', 'test-down');
    const client = new QueueClient(conn, `${env.QUEUE_PREFIX}-down`, deps.infra);
    conn.disconnect();
    // The command was refused for the connection being down, not queued until a reconnect.
    await assert.rejects(
      client.enqueue('ping', { nonce: nonce() }),
      (err: unknown) =>
        err instanceof AppError &&
        err.status === 503 &&
        err.retryable &&
        /enableOfflineQueue options is false/.test(String((err.cause as Error | undefined)?.message)),
    );
    await client.close();
  });

  it('every job definition has a deterministic id without ":" that is not all digits', () => {
    const samples: Record<string, unknown> = {
      ping: { nonce: 'abcdefgh' },
      'record-heartbeat': { slot: '202611220400', scheduledAt: '2026-11-22T04:00:00.000Z' },
      'execute-trade': { tradeId: '00000000-0000-4000-8000-000000000001' },
      'follow-kalshi-order': { tradeId: '00000000-0000-4000-8000-000000000001', poll: 3 },
      'settle-market': { marketId: '00000000-0000-4000-8000-000000000002' },
      'remark-leaderboard': { slot: '202611220400' },
      'refresh-volumes': { slot: '202611220400' },
      'snapshot-prices': { slot: '202611220415' },
      'reconcile-agent-slots': { slot: '202611220410' },
      'backfill-position-holders': { slot: '202611220410' },
      'reconcile-trades': { slot: '202611220405' },
      'import-markets': { importId: '00000000-0000-4000-8000-000000000003' },
      'sync-external-prices': { every: 30, bucket: 59000000 },
      'sync-venue-orders': { every: 10, bucket: 177000000 },
      'check-resolutions': { every: 60, bucket: 29500000 },
      'import-fast-markets': { slot: '202611220400' },
      'expire-sim-markets': { slot: '202611220400' },
      'broadcast-tx': { hash: `0x${'ab'.repeat(32)}`, request: 1 },
      'follow-tx-receipt': { hash: `0x${'ab'.repeat(32)}`, poll: 0 },
      // A user id from an identity provider may hold ':' itself.
      'redeem-position': {
        userId: 'auth0|user:42',
        agentId: null,
        marketId: '00000000-0000-4000-8000-000000000004',
        attempt: 'r1',
      },
      'auto-redeem': { slot: '202611220400' },
      // Event ids name the event type and its subject and may hold ':' themselves.
      'deliver-webhook': {
        webhookId: '00000000-0000-4000-8000-000000000005',
        eventId: 'trade.executed:00000000-0000-4000-8000-000000000001',
        type: 'trade.executed',
        createdAt: '2026-11-22T04:00:00.000Z',
        data: { trade_id: '00000000-0000-4000-8000-000000000001' },
      },
      'evaluate-price-alerts': {
        marketId: 'sim-market-1',
        cause: 'trade-00000000-0000-4000-8000-000000000001',
      },
      'after-trade-fill': { tradeId: '00000000-0000-4000-8000-000000000001' },
      'evaluate-position-monitors': { every: 10, bucket: 178_000_000 },
      // Monitor ids join agent, market, venue and side with ':'.
      'exit-monitored-position': {
        monitorId: 'agent-1:00000000-0000-4000-8000-000000000004:sim:yes',
        generation: 2,
        attempt: 'r29666',
      },
      'record-candles': { slot: '202611220401' },
      'refresh-copy-leaders': { slot: '202611220200' },
      // Fill ids join the transaction hash, the log index and the leg with ':'.
      'react-to-fills': { fillIds: [`0x${'ab'.repeat(32)}:7:taker`] },
      'withdraw-fills': { fillIds: [`0x${'ab'.repeat(32)}:7:taker`] },
      'record-tapes': { every: 60, bucket: 29500000 },
      'slice-tape': {
        key: '0123456789abcdef0123456789abcdef',
        datasetRev: '0123456789abcdef',
        t0: '2026-11-27',
        t1: '2026-11-28',
        startSec: 1795737600,
        endSec: 1795824000,
        maxMarkets: 300,
        minVolume: 1000,
        q: null,
        marketFiles: ['sim/markets/a.parquet'],
        printFiles: ['sim/prints/2026-11-27/b.parquet'],
      },
    };
    for (const [name, def] of Object.entries(JOBS)) {
      assert.ok(samples[name], `add a sample payload for ${name}`);
      assert.ok(def.schema.safeParse(samples[name]).success, `${name} sample parses`);
      const id = (def.jobId as (d: unknown) => string)(samples[name]);
      assert.ok(!id.includes(':') && !/^\d+$/.test(id), `${name} → ${id}`);
      assert.ok(def.options.removeOnComplete !== undefined, `${name} has a retention policy`);
    }
  });

  it('when WORKER_QUEUES names an unknown queue, then the selection fails naming the known ones', () => {
    assert.deepEqual(selectQueues(['system']), ['system']);
    assert.throws(() => selectQueues(['sytem']), /unknown queue\(s\): sytem\. Known: system/);
  });

  describe('health endpoints', () => {
    it('GET /healthz/ready round-trips a job and checks MongoDB and Redis', async () => {
      // The operator token adds each check's details (others see only ok/down).
      const res = await api()
        .get('/healthz/ready')
        .set('Authorization', `Bearer ${testContext().operatorToken}`);
      assert.equal(res.status, 200);
      assert.equal(res.body.status, 'ok');
      for (const check of ['mongodb', 'redis', 'queue']) {
        assert.equal(res.body.checks[check], 'ok', check);
        assert.equal(res.body.details[check].ok, true, check);
      }
    });

    it('GET /healthz/live answers without touching dependencies', async () => {
      const res = await api().get('/healthz/live');
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { status: 'ok' });
    });
  });
});
