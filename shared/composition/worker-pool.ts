import { DelayedError, UnrecoverableError, Worker } from 'bullmq';
import { AppError } from '../infra/errors.js';
import { NeverRetry } from '../infra/queue/job-errors.js';
import type { Deps } from './deps.js';
import { JOBS, jobNamesOf, type JobName } from '../infra/queue/jobs.js';
import type { ProcessorRegistry } from './processor.js';
import { outageDeferralMs } from './outage-deferral.js';
import { QUEUE_NAMES, type QueueName } from '../infra/queue/queues.js';
import { bullPrefix, createRedisConnection } from '../infra/redis.js';

/** Tape jobs (recorder runs and slices) one process runs at once. */
const TAPE_SLICES_PER_PROCESS = 2;

/** Resolves WORKER_QUEUES strictly: an unknown name stops the process rather than silently running "all". */
export function selectQueues(requested: string[] | undefined): QueueName[] {
  if (!requested || requested.length === 0) return [...QUEUE_NAMES];
  const unknown = requested.filter((q) => !(QUEUE_NAMES as readonly string[]).includes(q));
  if (unknown.length)
    throw new Error(
      `WORKER_QUEUES names unknown queue(s): ${unknown.join(', ')}. Known: ${QUEUE_NAMES.join(', ')}`,
    );
  return requested as QueueName[];
}

/**
 * One BullMQ Worker per queue, dispatching on job name through the registry. Payloads are parsed
 * with the job's schema first; a bad payload, a NeverRetry or a non-retryable AppError fails the job
 * for good, an outage of the database or Redis defers the job without spending an attempt, and
 * anything else (a RetryLater or VenueOutage among them, infra/queue/job-errors.ts) is rethrown so
 * the job's attempts/backoff apply.
 */
export function startWorkers(deps: Deps, registry: ProcessorRegistry, queues: QueueName[]): Worker[] {
  return queues.map((queue) => {
    const names = new Set<string>(jobNamesOf(queue));
    const connection = createRedisConnection(deps.infra, 'retrying', `worker-${queue}`);
    const worker = new Worker(
      queue,
      async (job, token) => {
        const name = job.name as JobName;
        if (!names.has(name))
          throw new UnrecoverableError(`No processor for job "${job.name}" on queue "${queue}"`);
        const parsed = JOBS[name].schema.safeParse(job.data);
        if (!parsed.success)
          throw new UnrecoverableError(`Invalid payload for ${name}: ${parsed.error.message}`);
        const log = deps.log.child({ queue, job: name, jobId: job.id, attempt: job.attemptsMade + 1 });
        const processor = registry[name] as (
          data: unknown,
          ctx: Parameters<ProcessorRegistry[JobName]>[1],
        ) => Promise<unknown>;
        try {
          return await processor(parsed.data, {
            deps,
            jobId: job.id as string,
            attempt: job.attemptsMade + 1,
            log,
          });
        } catch (err) {
          if (err instanceof NeverRetry || (err instanceof AppError && !err.retryable))
            throw new UnrecoverableError(err.message);
          const deferral = outageDeferralMs(job, err);
          if (deferral !== null) {
            // Needs Redis: when it is Redis that is down, the job stalls instead and is taken up again.
            const deferred = await job
              .moveToDelayed(Date.now() + deferral, token)
              .then(() => true)
              .catch(() => false);
            if (deferred) {
              log.warn(
                { err, retryInMs: deferral },
                'store unavailable; job deferred without spending an attempt',
              );
              throw new DelayedError();
            }
          }
          log.warn({ err }, 'job failed; it will be retried if attempts remain');
          throw err;
        }
      },
      {
        // Workers block on Redis: their connection retries forever instead of failing commands
        // (BullMQ makes its blocking copy of it; the worker's own is closed with the worker).
        connection,
        prefix: bullPrefix(deps.env.QUEUE_PREFIX, deps.infra),
        concurrency:
          // A fill's effects are gathered into batches as its trade was (composition/trade-effects.ts).
          queue === 'trades' || queue === 'trade-effects'
            ? deps.env.TRADE_WORKER_CONCURRENCY
            : // A slice takes DuckDB's threads: two at once per process is what the machine shares.
              queue === 'tapes'
              ? TAPE_SLICES_PER_PROCESS
              : deps.env.WORKER_CONCURRENCY,
        // A worker that dies mid-job loses its lock; another worker picks the job up after this long.
        // Money jobs are idempotent, so a job may stall (and be resumed) several times before it fails.
        lockDuration: deps.env.WORKER_LOCK_DURATION_MS,
        stalledInterval: deps.env.WORKER_LOCK_DURATION_MS,
        maxStalledCount: deps.env.WORKER_MAX_STALLED_COUNT,
      },
    );
    worker.on('error', (err) => deps.log.warn({ queue, err: err.message }, 'worker connection error'));
    worker.once('closed', () => connection.disconnect());
    return worker;
  });
}

/**
 * How long a forced close may take before the worker is given up on: after a cluster master was
 * SIGKILLed, the forced close of some idle workers (their blocking read had gone to that master)
 * was seen never to end, which left the process unable to stop.
 */
const FORCED_CLOSE_GRACE_MS = 2000;

/**
 * Stops taking jobs and waits for active ones; past the deadline, closes forcibly (BullMQ re-queues
 * stalled jobs), and past FORCED_CLOSE_GRACE_MS more, stops waiting.
 */

export async function stopWorkers(workers: Worker[], timeoutMs: number): Promise<void> {
  await Promise.all(
    workers.map(async (worker) => {
      const timers: NodeJS.Timeout[] = [];
      const forced = new Promise<void>((resolve) => {
        timers.push(
          setTimeout(() => {
            void worker.close(true).then(resolve, resolve);
            timers.push(setTimeout(resolve, FORCED_CLOSE_GRACE_MS));
          }, timeoutMs),
        );
      });
      await Promise.race([worker.close(), forced]);
      for (const timer of timers) clearTimeout(timer);
    }),
  );
}
