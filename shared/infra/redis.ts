import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { Logger } from './logger.js';

/**
 * Two connection profiles (BullMQ "going to production"):
 * - `fail-fast` for request paths: no offline queue, so a Redis outage surfaces at once as a 503
 *   instead of a request hanging until the client times out;
 * - `retrying` for workers and blocking clients: reconnects forever, commands wait for it.
 */
export type RedisProfile = 'fail-fast' | 'retrying';

/** A single Redis or a Redis Cluster: every command the service sends works on both. */
export type RedisClient = Redis | Cluster;

/**
 * Where Redis is: one server (`redisUrl`), or, when `redisClusterNodes` is set (REDIS_CLUSTER_NODES),
 * a Redis Cluster reached through these seed nodes (`redisUrl` then names the first one, for logs).
 */
export interface RedisTarget {
  redisUrl: string;
  redisClusterNodes?: readonly { host: string; port: number }[];
}

/** `host:port,host:port` (REDIS_CLUSTER_NODES) as seed nodes. */
export function parseClusterNodes(list: string): { host: string; port: number }[] {
  return list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((node) => {
      const at = node.lastIndexOf(':');
      return { host: node.slice(0, at), port: Number(node.slice(at + 1)) };
    });
}

/** The Redis that REDIS_CLUSTER_NODES or REDIS_URL names (unset: none, the embedded one is started). */
export function redisTargetOf(env: { REDIS_URL?: string; REDIS_CLUSTER_NODES?: string }): RedisTarget {
  if (!env.REDIS_CLUSTER_NODES) return { redisUrl: env.REDIS_URL ?? '' };
  const nodes = parseClusterNodes(env.REDIS_CLUSTER_NODES);
  return { redisUrl: `redis://${nodes[0]!.host}:${nodes[0]!.port}`, redisClusterNodes: nodes };
}

export const isClustered = (target: RedisTarget) => !!target.redisClusterNodes?.length;

export const isClusterClient = (redis: RedisClient): redis is Cluster => redis instanceof Cluster;

/**
 * The BullMQ prefix for QUEUE_PREFIX. On a cluster every key of one queue must share a slot
 * (BullMQ's scripts touch several of them at once), which BullMQ's docs get with a hash-tagged
 * prefix: `{bull}` puts every queue of the deployment in one slot. On a single Redis the prefix
 * stays as it always was, so the jobs an existing deployment has queued are still found.
 */
export const bullPrefix = (prefix: string, target: RedisTarget) =>
  isClustered(target) && !prefix.startsWith('{') ? `{${prefix}}` : prefix;

export function redisOptions(profile: RedisProfile): RedisOptions {
  const retryStrategy = (times: number) => Math.min(200 * times, 5000);
  return profile === 'fail-fast'
    ? {
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
        connectTimeout: 5000,
        retryStrategy,
        lazyConnect: true,
      }
    : {
        enableOfflineQueue: true,
        maxRetriesPerRequest: null,
        connectTimeout: 5000,
        retryStrategy,
        lazyConnect: true,
      };
}

/**
 * The one place a Redis connection is made (not connected yet: `connect()` it, or hand it to BullMQ,
 * which does). On a cluster the profile's offline queue and retries apply to the cluster client
 * (commands wait for a failover, or fail at once), its per-request options to each node's client.
 */
export function createRedisConnection(target: RedisTarget, profile: RedisProfile, name: string): RedisClient {
  const options = { ...redisOptions(profile), connectionName: name };
  if (!isClustered(target)) return new Redis(target.redisUrl, options);
  const { enableOfflineQueue, retryStrategy, lazyConnect, ...nodeOptions } = options;
  const clusterOptions: ClusterOptions = {
    enableOfflineQueue,
    lazyConnect,
    clusterRetryStrategy: retryStrategy,
    // A failover (a replica promoted) answers CLUSTERDOWN / moves slots for a few seconds: retried.
    retryDelayOnClusterDown: 200,
    retryDelayOnFailover: 200,
    redisOptions: nodeOptions,
  };
  return new Cluster([...target.redisClusterNodes!], clusterOptions);
}

export async function connectRedis(
  target: RedisTarget,
  profile: RedisProfile,
  name: string,
): Promise<RedisClient> {
  const redis = createRedisConnection(target, profile, name);
  await redis.connect();
  return redis;
}

const FIRST_WAIT_MS = 250;
const MAX_WAIT_MS = 10_000;

/**
 * `connectRedis` for a process starting up: while Redis does not answer (a compose stack where the
 * workers start first, Redis restarting), waits with backoff (250 ms doubling to 10 s, each wait
 * logged) and tries again, rather than exiting, so the process comes up once Redis does. A stop
 * signal still ends the process meanwhile (run-process.ts).
 */
export async function connectRedisWhenUp(
  target: RedisTarget,
  profile: RedisProfile,
  name: string,
  log: Logger,
): Promise<RedisClient> {
  for (let attempt = 1; ; attempt++) {
    const redis = createRedisConnection(target, profile, name);
    // Failures surface through connect()'s rejection; this only keeps ioredis from reporting them
    // as unhandled 'error' events too.
    const quiet = () => undefined;
    redis.on('error', quiet);
    try {
      await redis.connect();
      if (attempt > 1) log.info({ connection: name, attempts: attempt }, 'Redis answers now');
      return redis;
    } catch (err) {
      redis.disconnect();
      const delayMs = Math.min(FIRST_WAIT_MS * 2 ** (attempt - 1), MAX_WAIT_MS);
      log.warn(
        { connection: name, attempt, delayMs, err: err instanceof Error ? err.message : String(err) },
        'Redis is not reachable; waiting before trying again',
      );
      await new Promise((r) => setTimeout(r, delayMs));
    } finally {
      redis.off('error', quiet);
    }
  }
}

/**
 * Every key matching `pattern` (SCAN, so a large keyspace is walked without blocking Redis). On a
 * cluster each master holds its own keys: every master is walked.
 */
export async function scanKeys(redis: RedisClient, pattern: string): Promise<string[]> {
  const keys = new Set<string>();
  for (const node of isClusterClient(redis) ? redis.nodes('master') : [redis]) {
    let cursor = '0';
    do {
      const [next, batch] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      for (const key of batch) keys.add(key);
      cursor = next;
    } while (cursor !== '0');
  }
  return [...keys];
}

/**
 * MGET of keys that may live in different slots: one MGET on a single Redis; on a cluster (where a
 * multi-key command must stay in one slot) one GET per key, sent together.
 */
export async function getMany(redis: RedisClient, keys: string[]): Promise<(string | null)[]> {
  if (!keys.length) return [];
  if (!isClusterClient(redis)) return redis.mget(...keys);
  return Promise.all(keys.map((key) => redis.get(key)));
}

/** DEL of keys that may live in different slots (see getMany): how many were removed. */
export async function deleteMany(redis: RedisClient, keys: string[]): Promise<number> {
  if (!keys.length) return 0;
  if (!isClusterClient(redis)) return redis.del(...keys);
  const removed = await Promise.all(keys.map((key) => redis.del(key)));
  return removed.reduce((a, b) => a + b, 0);
}
