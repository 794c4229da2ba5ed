import type { Logger } from './logger.js';
import { connectRedis, type RedisClient, type RedisTarget } from './redis.js';

/**
 * What changed, by id: `agent` (its status, claim or settings: every cached copy of the agent),
 * `settings` (an owner's trading settings, by settings key `user:<id>` / `agent:<id>`), `user` (a
 * user's tier), `automaton` (an agent's automaton: its halt, budget, venue or start, by agent id),
 * `reactor` (an agent's Reactor config, by agent id: the watcher index is rebuilt).
 */
export type InvalidationKind = 'agent' | 'settings' | 'user' | 'automaton' | 'reactor';

/** How long a cached entry may live while the channel is down (nothing would tell us of a change). */
export const DEGRADED_MAX_AGE_MS = 1000;

/**
 * Cache invalidation across processes: one Redis pub/sub channel per deployment
 * (`<QUEUE_PREFIX>:invalidate`), one subscriber connection per process. A writer calls `publish`
 * after its database write: this process drops the entry at once, every other process when the
 * message arrives (milliseconds). When the subscriber is down, messages are lost: `healthy` turns
 * false (caches then keep entries at most DEGRADED_MAX_AGE_MS) and every cache is cleared when it
 * is back. On a Redis Cluster the channel is an ordinary (not sharded) one: a PUBLISH to any node
 * reaches the subscribers of every node, and the cluster client moves the subscription to another
 * node when its node fails.
 */
export interface Invalidation {
  publish(kind: InvalidationKind, id: string): Promise<void>;
  onInvalidate(kind: InvalidationKind, drop: (id: string) => void): void;
  /** Everything may be stale (the subscriber missed messages): drop it all. */
  onReset(dropAll: () => void): void;
  readonly healthy: boolean;
  close(): void;
}

export async function startInvalidation(opts: {
  redis: RedisTarget;
  prefix: string;
  /** The process's request-path connection (a subscriber connection cannot publish). */
  publisher: RedisClient;
  log: Logger;
  connectionName?: string;
}): Promise<Invalidation> {
  const { publisher, log } = opts;
  const channel = `${opts.prefix}:invalidate`;
  const handlers = new Map<InvalidationKind, ((id: string) => void)[]>();
  const resets: (() => void)[] = [];
  let healthy = false;
  let closed = false;

  const drop = (kind: InvalidationKind, id: string) => {
    for (const fn of handlers.get(kind) ?? []) fn(id);
  };
  const resetAll = () => {
    for (const fn of resets) fn();
  };

  const subscriber = await connectRedis(opts.redis, 'retrying', opts.connectionName ?? 'invalidation');
  subscriber.on('error', (err: Error) => log.debug({ err: err.message }, 'invalidation subscriber error'));
  subscriber.on('message', (_channel: string, message: string) => {
    const at = message.indexOf(':');
    drop(message.slice(0, at) as InvalidationKind, message.slice(at + 1));
  });
  subscriber.on('close', () => {
    if (!healthy || closed) return;
    healthy = false;
    log.warn(
      `cache invalidation channel down: cached agents and settings now live at most ${DEGRADED_MAX_AGE_MS} ms`,
    );
  });
  const subscribe = async () => {
    await subscriber.subscribe(channel);
    // Messages sent while we were not listening are lost: start from nothing.
    resetAll();
    if (!healthy && !closed) log.info('cache invalidation channel up');
    healthy = true;
  };
  // ioredis re-subscribes by itself after a reconnect, but only this tells us when it is done.
  subscriber.on('ready', () => {
    if (!healthy)
      subscribe().catch((err: unknown) => log.warn({ err }, 'cache invalidation subscribe failed'));
  });
  await subscribe();

  return {
    get healthy() {
      return healthy;
    },
    async publish(kind, id) {
      drop(kind, id);
      await publisher
        .publish(channel, `${kind}:${id}`)
        .catch((err: unknown) =>
          log.warn(
            { err, kind, id },
            'cache invalidation not published: other processes see the change when their entry expires',
          ),
        );
    },
    onInvalidate(kind, fn) {
      handlers.set(kind, [...(handlers.get(kind) ?? []), fn]);
    },
    onReset(fn) {
      resets.push(fn);
    },
    close() {
      closed = true;
      healthy = false;
      subscriber.disconnect();
    },
  };
}
