import assert from 'node:assert/strict';
import mongoose from 'mongoose';
import type { Job } from 'bullmq';
import { QueueClient } from '../../shared/infra/queue/queue-client.js';
import { startWorkers, stopWorkers } from '../../shared/composition/worker-pool.js';
import type { ProcessorRegistry } from '../../shared/composition/processor.js';
import { PROCESSORS } from '../../workers/registry.js';
import { testContext } from '../support/context.js';

/**
 * A job that fails because the database or Redis is down has done nothing wrong: it waits the outage
 * out without spending its attempts (execute-trade's 8 attempts last ~13 s, less than a restart of
 * the embedded database under load), while a failure of its own still spends them.
 */
describe('a store outage does not spend a job’s attempts #integration', function () {
  this.timeout(60_000);

  async function runFlaky(failures: number, error: () => Error) {
    const ctx = testContext();
    const prefix = `${ctx.env.QUEUE_PREFIX}-outage-${failures}-${Date.now()}`;
    const queues = new QueueClient(ctx.deps.redis, prefix, ctx.deps.infra);
    const deps = { ...ctx.deps, env: { ...ctx.env, QUEUE_PREFIX: prefix }, queues };
    let calls = 0;
    const registry: ProcessorRegistry = {
      ...PROCESSORS,
      'reconcile-agent-slots': async () => {
        calls++;
        if (calls <= failures) throw error();
        return { done: true };
      },
    };
    const workers = startWorkers(deps, registry, ['system']);
    try {
      const added = await queues.enqueue('reconcile-agent-slots', { slot: '202611250600' });
      const deadline = Date.now() + 30_000;
      let job: Job | undefined;
      for (;;) {
        job = await queues.findJob('reconcile-agent-slots', { slot: '202611250600' });
        const state = await job?.getState();
        if (state === 'completed' || state === 'failed' || Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(job?.id, added.id);
      // Read the job again: the copy above was fetched before the state that ended the loop, so its
      // counters (attemptsMade) can be those of the attempt still running.
      const settled = (await queues.findJob('reconcile-agent-slots', { slot: '202611250600' }))!;
      return { job: settled, state: await settled.getState(), calls };
    } finally {
      await stopWorkers(workers, 5000);
      await Promise.all(Object.values(queues.queues).map((q) => q.obliterate({ force: true })));
      await queues.close();
    }
  }

  it('when the database is unreachable for more tries than the job has attempts, then the job is deferred, not failed, and completes once it is back', async () => {
    // reconcile-agent-slots has 3 attempts: 4 outage failures would fail it for good if they counted.
    const { job, state, calls } = await runFlaky(
      4,
      () => new mongoose.mongo.MongoNetworkError('connection 3 to 127.0.0.1:27017 closed'),
    );
    assert.equal(state, 'completed');
    assert.equal(calls, 5);
    // BullMQ counts the attempt that completed; the four deferred runs are starts, not attempts.
    assert.equal(job.attemptsMade, 1, 'no attempt was spent on the outage');
    assert.equal(job.attemptsStarted, 5);
    assert.deepEqual(job.returnvalue, { done: true });
  });

  it('when Redis refuses commands while it loads its file, then that is an outage too', async () => {
    const loading = () =>
      Object.assign(new Error('LOADING Redis is loading the dataset in memory'), { name: 'ReplyError' });
    const { state, job } = await runFlaky(4, loading);
    assert.equal(state, 'completed');
    assert.equal(job.attemptsMade, 1);
  });

  it('when the job fails for its own reason, then its attempts are spent and it fails for good', async () => {
    const { state, job, calls } = await runFlaky(10, () => new Error('the job’s own bug'));
    const seen = JSON.stringify({
      state,
      calls,
      made: job.attemptsMade,
      started: job.attemptsStarted,
      reason: job.failedReason,
    });
    assert.equal(state, 'failed', seen);
    assert.equal(calls, 3, seen);
    assert.equal(job.attemptsMade, 3, seen);
  });
});
