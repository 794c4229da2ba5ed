import type { Connection } from 'mongoose';
import type { Redis } from 'ioredis';
import type { Env } from '../infra/config/env.js';
import type { Logger } from '../infra/logger.js';
import { connectMongo } from '../infra/mongo.js';
import { connectRedis } from '../infra/redis.js';
import { QueueClient } from '../infra/queue/queue-client.js';
import { createMetrics, type Metrics } from '../infra/metrics.js';
import type { Infrastructure } from '../infra/embedded/infrastructure.js';
import type { VenueRegistry } from '../domains/venues/venue-registry.js';
import { createVenues } from './venues.js';
import { createModels, ensureIndexes, type Models } from '../domains/models.js';

/** Everything a role needs, built once per process (the composition root) and passed down explicitly. */
export interface Deps {
  env: Env;
  log: Logger;
  infra: Infrastructure;
  mongo: Connection;
  models: Models;
  /** Fail-fast connection for request paths: rate limits, caches, the producer. */
  redis: Redis;
  queues: QueueClient;
  metrics: Metrics;
  /** One adapter per reachable venue (sim, polymarket): the only way to a venue's market data. */
  venues: VenueRegistry;
  clock: () => Date;
}

export async function createDeps(env: Env, infra: Infrastructure, log: Logger): Promise<Deps> {
  const mongo = await connectMongo(infra.mongoUri, env.MONGODB_DB);
  const models = createModels(mongo);
  await ensureIndexes(models);
  const redis = await connectRedis(infra.redisUrl, 'fail-fast', 'producer');
  redis.on('error', (err) => log.warn({ err: err.message }, 'redis connection error'));
  const queues = new QueueClient(redis, env.QUEUE_PREFIX, infra.redisUrl);
  const metrics = createMetrics(queues);
  const clock = () => new Date();
  return {
    env,
    log,
    infra,
    mongo,
    models,
    redis,
    queues,
    metrics,
    venues: createVenues(env, models, metrics, log, clock),
    clock,
  };
}

export async function closeDeps(deps: Deps): Promise<void> {
  await deps.queues.close();
  deps.redis.disconnect();
  await deps.mongo.close();
}
