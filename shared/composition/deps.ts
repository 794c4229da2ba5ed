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
import type { TradingVenues } from '../domains/trading/venue-trading.js';
import { createPolygonRpc, createTradingVenues, createVenues } from './venues.js';
import type { PolygonRpc } from '../domains/onchain/polygon-rpc.js';
import { createModels, ensureIndexes, type Models } from '../domains/models.js';
import { migrateStoredDocuments } from '../domains/migrations.js';
import { DEGRADED_MAX_AGE_MS, startInvalidation, type Invalidation } from '../infra/invalidation.js';
import { LocalCache } from '../infra/local-cache.js';
import type { AgentRecord } from '../domains/agents/agent.model.js';
import type { TradingSettings } from '../domains/limits/trading-settings.model.js';
import type { Tier } from '../domains/users/user.model.js';
import type { MarketRecord } from '../domains/markets/market.model.js';
import type { ResolveHost } from '../domains/webhooks/url-guard.js';

/**
 * In-process caches of what the API reads on every request, so that a request costs no database
 * round trip for them. Every change drops them on every process through `invalidation`; LOCAL_CACHE_SECONDS
 * (DEGRADED_MAX_AGE_MS while the channel is down) bounds what a lost message could leave behind.
 */
export interface LocalCaches {
  /** Agents by API key hash (frozen lean records). Balances and counters in them are not current. */
  agentsByKeyHash: LocalCache<AgentRecord>;
  /** Trading settings by settings key (`user:<id>` / `agent:<id>`). */
  settings: LocalCache<TradingSettings>;
  /** Users' tiers by user id. */
  tiers: LocalCache<Tier>;
  /**
   * Markets by id, for the trade path's checks before queueing (existence and tradeability, fixed
   * when a market is created). Their prices are not current: the worker decides every fill on the
   * book itself, and an answer that shows a price reads the market again.
   */
  markets: LocalCache<MarketRecord>;
}

/** Room for every agent active within the cache lifetime in a large deployment; least recent go first. */
const LOCAL_CACHE_ENTRIES = 20_000;

function createLocalCaches(env: Env, invalidation: Invalidation): LocalCaches {
  const ttlMs = env.LOCAL_CACHE_SECONDS * 1000;
  const maxAgeMs = () => (invalidation.healthy ? ttlMs : Math.min(ttlMs, DEGRADED_MAX_AGE_MS));
  const caches: LocalCaches = {
    agentsByKeyHash: new LocalCache(LOCAL_CACHE_ENTRIES, maxAgeMs),
    settings: new LocalCache(LOCAL_CACHE_ENTRIES, maxAgeMs),
    tiers: new LocalCache(LOCAL_CACHE_ENTRIES, maxAgeMs),
    markets: new LocalCache(LOCAL_CACHE_ENTRIES, maxAgeMs),
  };
  invalidation.onInvalidate('agent', (id) => caches.agentsByKeyHash.deleteWhere((a) => a._id === id));
  invalidation.onInvalidate('settings', (key) => caches.settings.delete(key));
  invalidation.onInvalidate('user', (id) => caches.tiers.delete(id));
  invalidation.onReset(() => {
    for (const cache of Object.values(caches)) cache.clear();
  });
  return caches;
}

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
  /** One trading engine per venue (sim, polymarket, kalshi): the only way a trade reaches a venue. */
  trading: TradingVenues;
  /** Polygon JSON-RPC reads (allowances, the authenticated RPC proxy); writes go through the relay. */
  polygon: PolygonRpc;
  /** Tells every process's caches that something changed (Redis pub/sub); see LocalCaches. */
  invalidation: Invalidation;
  caches: LocalCaches;
  clock: () => Date;
  /** Name resolution for the SSRF guard of outbound URLs (webhooks); the system resolver when unset. */
  resolveHost?: ResolveHost;
}

export async function createDeps(env: Env, infra: Infrastructure, log: Logger): Promise<Deps> {
  const mongo = await connectMongo(infra.mongoUri, env.MONGODB_DB, env.MONGODB_SERVER_SELECTION_TIMEOUT_MS);
  const models = createModels(mongo);
  await ensureIndexes(models);
  await migrateStoredDocuments(models, log);
  const redis = await connectRedis(infra.redisUrl, 'fail-fast', 'producer');
  redis.on('error', (err) => log.warn({ err: err.message }, 'redis connection error'));
  const queues = new QueueClient(redis, env.QUEUE_PREFIX, infra.redisUrl);
  const invalidation = await startInvalidation({
    redisUrl: infra.redisUrl,
    prefix: env.QUEUE_PREFIX,
    publisher: redis,
    log,
  });
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
    trading: createTradingVenues(),
    polygon: createPolygonRpc(env, metrics, log),
    invalidation,
    caches: createLocalCaches(env, invalidation),
    clock,
  };
}

export async function closeDeps(deps: Deps): Promise<void> {
  await deps.queues.close();
  deps.invalidation.close();
  deps.redis.disconnect();
  await deps.mongo.close();
}
