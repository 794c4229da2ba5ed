import type { Connection } from 'mongoose';
import type { Env } from './config/env.js';
import type { Logger } from './logger.js';
import type { QueueClient } from './queue/queue-client.js';
import type { Metrics } from './metrics.js';
import type { Infrastructure } from './embedded/infrastructure.js';
import type { Invalidation } from './invalidation.js';
import type { RedisClient } from './redis.js';

/**
 * The process's infrastructure handles, as the composition root builds them once per process. No
 * domain knowledge: a domain function names the few it uses (`Pick<InfraDeps, 'clock' | 'env'>`)
 * beside the domain parts it needs (models, venues, caches…), declared where it is used, so that
 * what a function can reach is read from its signature and a test builds only that.
 */
export interface InfraDeps {
  env: Env;
  log: Logger;
  infra: Infrastructure;
  mongo: Connection;
  /** Fail-fast connection for request paths: rate limits, caches, the producer. */
  redis: RedisClient;
  queues: QueueClient;
  metrics: Metrics;
  /** Tells every process's caches that something changed (Redis pub/sub). */
  invalidation: Invalidation;
  clock: () => Date;
}
