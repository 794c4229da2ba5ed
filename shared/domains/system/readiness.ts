import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';
import { randomBytes } from 'node:crypto';
import { LocalCache } from '../../infra/local-cache.js';
import { pingMongo } from '../../infra/mongo.js';
import type { QueueClient } from '../../infra/queue/queue-client.js';
import { lastHeartbeat } from './heartbeat.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type ReadinessDeps = Pick<InfraDeps, 'env' | 'mongo' | 'redis' | 'queues'> & { models: Models };

/** One dependency's answer, with what went wrong (for operators only: it names hosts and ports). */
export interface CheckResult {
  ok: boolean;
  latency_ms: number;
  error?: string;
}

export interface Readiness {
  ok: boolean;
  checks: { mongodb: CheckResult; redis: CheckResult; queue: CheckResult };
  schedulerLastHeartbeat: Date | null;
}

async function timed(check: () => Promise<unknown>): Promise<CheckResult> {
  const started = performance.now();
  try {
    await check();
    return { ok: true, latency_ms: Math.round(performance.now() - started) };
  } catch (err) {
    return {
      ok: false,
      latency_ms: Math.round(performance.now() - started),
      error: err instanceof Error ? err.message : String(err),
    };
  }
}

/** How long a probe waits for Redis to answer one command: a stopped (not dead) Redis never does. */
export const READY_REDIS_TIMEOUT_MS = 1000;

/** `work`, or an error naming `what` once `ms` have passed without an answer. */
async function within<T>(ms: number, what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * How long one queue round trip answers readiness probes. Probes come from load balancers every few
 * seconds per replica (and from anyone: the route is public); a job per probe would fill the system
 * queue, so concurrent and closely following probes share one.
 */
export const QUEUE_CHECK_CACHE_MS = 5000;

/** Per queue client (one per process), the last queue round trip. */
const queueChecks = new WeakMap<QueueClient, LocalCache<CheckResult>>();

function queueRoundTrip(deps: Pick<ReadinessDeps, 'queues' | 'env'>): Promise<CheckResult> {
  let cache = queueChecks.get(deps.queues);
  if (!cache) {
    cache = new LocalCache<CheckResult>(1, () => QUEUE_CHECK_CACHE_MS);
    queueChecks.set(deps.queues, cache);
  }
  return cache.getOrLoad('queue', () =>
    timed(async () => {
      const nonce = randomBytes(12).toString('base64url');
      const outcome = await deps.queues.enqueueAndWait('ping', { nonce }, deps.env.READY_TIMEOUT_MS);
      if (outcome.state === 'pending')
        throw new Error(
          `no worker answered within ${deps.env.READY_TIMEOUT_MS} ms (is a worker consuming the system queue?)`,
        );
      if (outcome.state === 'failed') throw new Error(outcome.reason);
    }),
  );
}

/**
 * The queue, asked on every probe: its own Redis connection must answer a read of the system queue
 * now; only then does the last round trip (kept QUEUE_CHECK_CACHE_MS) count. A round trip made just
 * before Redis died would otherwise report the queue ok while nothing can be enqueued.
 */
async function queueCheck(deps: Pick<ReadinessDeps, 'queues' | 'env'>): Promise<CheckResult> {
  const reachable = await timed(() =>
    within(READY_REDIS_TIMEOUT_MS, 'the queue’s Redis', deps.queues.queues.system.getJobCounts('waiting')),
  );
  return reachable.ok ? queueRoundTrip(deps) : reachable;
}

/** MongoDB and Redis answer, and a no-op job makes a round trip through the queue to a worker. */
export async function checkReadiness(
  deps: Pick<ReadinessDeps, 'mongo' | 'redis' | 'queues' | 'env' | 'models'>,
): Promise<Readiness> {
  const [mongodb, redis, queue] = await Promise.all([
    timed(() => pingMongo(deps.mongo)),
    timed(() => within(READY_REDIS_TIMEOUT_MS, 'Redis', deps.redis.ping())),
    queueCheck(deps),
  ]);
  // Without the database the heartbeat read would only wait out the server-selection timeout again.
  const heartbeat = mongodb.ok
    ? await lastHeartbeat(deps.models.Heartbeat, 'scheduler').catch(() => null)
    : null;
  return {
    ok: mongodb.ok && redis.ok && queue.ok,
    checks: { mongodb, redis, queue },
    schedulerLastHeartbeat: heartbeat?.processedAt ?? null,
  };
}
