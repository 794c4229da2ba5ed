import type { EventEmitter } from 'node:events';
import { Job, Queue, QueueEvents, type JobsOptions } from 'bullmq';
import { AppError, unavailable } from '../errors.js';
import { JOBS, type JobData, type JobName } from './jobs.js';
import { QUEUE_NAMES, type QueueName } from './queues.js';
import { bullPrefix, createRedisConnection, type RedisClient, type RedisTarget } from '../redis.js';

export type JobOutcome<T = unknown> =
  | { state: 'completed'; jobId: string; result: T }
  | { state: 'failed'; jobId: string; reason: string }
  /** The deadline passed first; the job carries on and its outcome is read later from its record. */
  | { state: 'pending'; jobId: string };

/**
 * The producer side of every queue. `Queue` objects share the fail-fast connection, so an enqueue
 * during a Redis outage fails at once (503) instead of hanging. `QueueEvents` (request-reply) need a
 * blocking connection each and are created on first use, one per queue. `prefix` is QUEUE_PREFIX:
 * on a cluster the queues' keys go under its hash-tagged form (bullPrefix).
 */
export class QueueClient {
  readonly queues: Record<QueueName, Queue>;
  private readonly events = new Map<QueueName, Promise<QueueEvents>>();
  private readonly prefix: string;
  /** The connections given to the QueueEvents, which BullMQ leaves to their owner to close. */
  private readonly eventConnections: RedisClient[] = [];

  constructor(
    private readonly connection: RedisClient,
    queuePrefix: string,
    private readonly redis: RedisTarget,
  ) {
    const prefix = bullPrefix(queuePrefix, redis);
    this.prefix = prefix;
    this.queues = Object.fromEntries(
      QUEUE_NAMES.map((name) => {
        const queue = new Queue(name, { connection, prefix });
        // Without a listener an 'error' event would crash the process; the failing call reports it.
        queue.on('error', () => undefined);
        // Every request-reply in flight listens on its queue; hundreds at once are normal.
        queue.setMaxListeners(0);
        return [name, queue];
      }),
    ) as Record<QueueName, Queue>;
  }

  /** The job a logical job's deterministic id names, while BullMQ still holds it. */
  async findJob<N extends JobName>(name: N, data: JobData<N>): Promise<Job | undefined> {
    const def = JOBS[name];
    return this.queues[def.queue].getJob((def.jobId as (d: JobData<N>) => string)(data));
  }

  /**
   * Removes the job a logical job's id names when it has failed for a reason `worthRetrying` accepts,
   * so that asking for the same work again is a new attempt, not the kept failure answered once more
   * (a failed job keeps its id while BullMQ holds it). A job in any other state is left alone; so is
   * one another process removed first.
   */
  async discardFailed<N extends JobName>(
    name: N,
    data: JobData<N>,
    worthRetrying: (failedReason: string) => boolean,
  ): Promise<void> {
    try {
      const job = await this.findJob(name, data);
      if (job && (await job.isFailed()) && worthRetrying(job.failedReason)) await job.remove();
    } catch (err) {
      if (err instanceof Error && /could not be removed|Missing key/i.test(err.message)) return;
      throw unavailable('The job queue', err);
    }
  }

  /**
   * `delay`: run no earlier than this many ms from now (a follow-up poll). `backoff`: retry delays
   * that come from config instead of the job's defaults.
   */
  async enqueue<N extends JobName>(
    name: N,
    data: JobData<N>,
    opts: Pick<JobsOptions, 'delay' | 'backoff'> = {},
  ): Promise<Job> {
    const def = JOBS[name];
    const parsed = def.schema.safeParse(data);
    if (!parsed.success) {
      throw new AppError(
        500,
        'invalid_job',
        `Job ${name} has an invalid payload: ${parsed.error.message}`,
        'This is a bug; report it.',
        { retryable: false },
      );
    }
    const payload = parsed.data as JobData<N>;
    try {
      return await this.queues[def.queue].add(name, payload, {
        ...def.options,
        ...opts,
        jobId: (def.jobId as (d: JobData<N>) => string)(payload),
      });
    } catch (err) {
      throw unavailable('The job queue', err);
    }
  }

  /** Enqueues and waits for the worker's result until `timeoutMs`; never throws for a failed job. */
  async enqueueAndWait<T>(
    name: JobName,
    data: JobData<typeof name>,
    timeoutMs: number,
  ): Promise<JobOutcome<T>> {
    const queue = this.queues[JOBS[name].queue];
    const events = await this.eventsFor(JOBS[name].queue);
    const job = await this.enqueue(name, data);
    return waitForJob<T>(queue, events, job.id as string, timeoutMs);
  }

  /**
   * Opens the request-reply listeners of these queues now, so the first synchronous call after a
   * start (or a long idle) does not pay for a new blocking connection on its request path.
   */
  async warmUp(queues: QueueName[]): Promise<void> {
    await Promise.all(queues.map((q) => this.eventsFor(q)));
  }

  private eventsFor(queue: QueueName): Promise<QueueEvents> {
    let events = this.events.get(queue);
    if (!events) {
      // QueueEvents blocks on XREAD, so it gets its own connection that reconnects by itself
      // (BullMQ duplicates the one given here for its blocking reads and closes that copy).
      const connection = createRedisConnection(this.redis, 'retrying', `queue-events-${queue}`);
      this.eventConnections.push(connection);
      events = this.lastEventId(queue).then((lastEventId) => {
        const qe = new QueueEvents(queue, { connection, prefix: this.prefix, lastEventId });
        qe.on('error', () => undefined);
        qe.setMaxListeners(0);
        return qe.waitUntilReady().then(() => qe);
      });
      events.catch(() => this.events.delete(queue));
      this.events.set(queue, events);
    }
    return events;
  }

  /**
   * Where the listener starts reading the queue's event stream: after its newest event now. BullMQ's
   * default (`$`, whatever is newest when its first blocking read reaches Redis) misses the events
   * of a job that finishes between this listener being ready and that first read, which a cluster
   * connection (slots discovered first) made likely: the first request-reply after a start then
   * waited for its whole deadline. Unreadable: BullMQ's default.
   */
  private async lastEventId(queue: QueueName): Promise<string | undefined> {
    try {
      const [newest] = await this.connection.xrevrange(this.queues[queue].keys.events!, '+', '-', 'COUNT', 1);
      return newest ? newest[0] : '0-0';
    } catch {
      return undefined;
    }
  }

  async jobCounts(): Promise<Record<QueueName, Record<string, number>>> {
    const entries = await Promise.all(
      QUEUE_NAMES.map(
        async (name) =>
          [
            name,
            await this.queues[name].getJobCounts(
              'waiting',
              'active',
              'delayed',
              'failed',
              'completed',
              'prioritized',
            ),
          ] as const,
      ),
    );
    return Object.fromEntries(entries) as Record<QueueName, Record<string, number>>;
  }

  async close(): Promise<void> {
    const events = await Promise.allSettled([...this.events.values()]);
    await Promise.allSettled(events.map((e) => (e.status === 'fulfilled' ? e.value.close() : undefined)));
    for (const connection of this.eventConnections) connection.disconnect();
    await Promise.allSettled(Object.values(this.queues).map((q) => q.close()));
  }
}

/**
 * What BullMQ's job.waitUntilFinished does (listen for the job's completed/failed event, look once
 * in case it finished before the listeners), except that the look's errors are handled: BullMQ makes
 * it inside an async Promise executor, so Redis dying at that moment rejected a promise nobody held
 * and Node ended the whole process (found by the chaos run). A look that fails leaves the wait to
 * the events, which their connection delivers once Redis is back, or to the deadline.
 */
function waitForJob<T>(
  queue: Queue,
  events: QueueEvents,
  jobId: string,
  timeoutMs: number,
): Promise<JobOutcome<T>> {
  // Typed as plain emitters: BullMQ's listener maps do not name per-job events or 'closing'.
  const jobEvents = events as unknown as EventEmitter;
  const queueEvents = queue as unknown as EventEmitter;
  return new Promise((resolve) => {
    const completedEvent = `completed:${jobId}`;
    const failedEvent = `failed:${jobId}`;
    const finish = (outcome: JobOutcome<T>) => {
      clearTimeout(timer);
      jobEvents.off(completedEvent, onCompleted);
      jobEvents.off(failedEvent, onFailed);
      queueEvents.off('closing', onClosing);
      resolve(outcome);
    };
    const onCompleted = ({ returnvalue }: { returnvalue: unknown }) =>
      finish({ state: 'completed', jobId, result: returnvalue as T });
    const onFailed = ({ failedReason }: { failedReason: string }) =>
      finish({ state: 'failed', jobId, reason: failedReason });
    const onClosing = () => finish({ state: 'failed', jobId, reason: 'the queue is closing' });
    const timer = setTimeout(() => finish({ state: 'pending', jobId }), timeoutMs);
    jobEvents.on(completedEvent, onCompleted);
    jobEvents.on(failedEvent, onFailed);
    queueEvents.on('closing', onClosing);
    void (async () => {
      // The state first: a job is completed only once its return value is stored.
      const state = await queue.getJobState(jobId);
      if (state !== 'completed' && state !== 'failed') return;
      const job = await Job.fromId(queue, jobId);
      if (!job) return;
      if (state === 'completed') onCompleted({ returnvalue: job.returnvalue });
      else onFailed({ failedReason: job.failedReason });
    })().catch(() => undefined);
  });
}
