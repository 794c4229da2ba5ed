import assert from 'node:assert/strict';
import type { JobData, JobName } from '../../shared/infra/queue/jobs.js';
import type { QueueName } from '../../shared/infra/queue/queues.js';
import { testContext } from './context.js';
import { until } from './until.js';

/** Jobs in `queue` still to run (queued, running or waiting for a retry) whose data matches. */
export async function pendingJobs(queue: QueueName, matches: (data: Record<string, unknown>) => boolean) {
  const jobs = await testContext().deps.queues.queues[queue].getJobs([
    'waiting',
    'active',
    'delayed',
    'prioritized',
    'waiting-children',
  ]);
  return jobs.filter((j) => j && matches(j.data as Record<string, unknown>)).length;
}

/**
 * Returns once no job in `queue` whose data matches is left to run: whatever those jobs would do
 * has been done, so "nothing more happened" can be asserted without sleeping.
 */
export async function jobsSettled(queue: QueueName, matches: (data: Record<string, unknown>) => boolean) {
  const left = await until(
    () => pendingJobs(queue, matches),
    (n) => n === 0,
  );
  assert.equal(left, 0, `jobs still pending in ${queue}`);
}

/** Returns once the job a logical job's deterministic id names has completed (kept an hour). */
export async function jobCompleted<N extends JobName>(name: N, data: JobData<N>) {
  const { queues } = testContext().deps;
  const done = await until(
    async () => Boolean(await (await queues.findJob(name, data))?.isCompleted()),
    Boolean,
  );
  assert.ok(done, `the ${name} job ${JSON.stringify(data)} completed`);
}
