import { venueModuleEnvironment, type Env } from '../infra/config/env.js';
import type { Logger } from '../infra/logger.js';
import { connectMongo, watchMongo } from '../infra/mongo.js';
import { connectRedisWhenUp } from '../infra/redis.js';
import { QueueClient } from '../infra/queue/queue-client.js';
import { createMetrics } from '../infra/metrics.js';
import type { Infrastructure } from '../infra/embedded/infrastructure.js';
import { createModels, ensureIndexes } from '../domains/models.js';
import { migrateStoredDocuments } from './migrations.js';
import { DEGRADED_MAX_AGE_MS, startInvalidation, type Invalidation } from '../infra/invalidation.js';
import { LocalCache } from '../infra/local-cache.js';
import { withinDatabaseDeadline } from '../infra/database-unavailable.js';
import type { Deps, LocalCaches } from './deps.js';
import { clobWalletCredentials } from '../domains/venues/polymarket/clob-credentials.js';
import { solanaWalletRegistrations } from '../domains/venues/kalshi/solana-wallet-guard.js';
import { createVenueModels } from './venue-models.js';
import {
  createPolygonRpc,
  createRelayer,
  createTradingVenues,
  createVenues,
  type ExtraVenue,
} from './venues.js';
import { createCandleSource } from './market-data.js';
import { loadVenueModules } from './venue-modules.js';
import { migrateLegacyDayCounters } from '../domains/limits/counters.js';

/** Room for every agent active within the cache lifetime in a large deployment; least recent go first. */
const LOCAL_CACHE_ENTRIES = 20_000;
/** A cache load is one indexed read: far past a second, it will not answer (see DatabaseStalledError). */
const CACHE_LOAD_DEADLINE_MS = 10_000;

function createLocalCaches(env: Env, invalidation: Invalidation): LocalCaches {
  const ttlMs = env.LOCAL_CACHE_SECONDS * 1000;
  const maxAgeMs = () => (invalidation.healthy ? ttlMs : Math.min(ttlMs, DEGRADED_MAX_AGE_MS));
  const bounded = <T>(load: Promise<T>, key: string) =>
    withinDatabaseDeadline(load, CACHE_LOAD_DEADLINE_MS, `the cache load of ${key}`);
  const caches: LocalCaches = {
    agentsByKeyHash: new LocalCache(LOCAL_CACHE_ENTRIES, maxAgeMs, bounded),
    settings: new LocalCache(LOCAL_CACHE_ENTRIES, maxAgeMs, bounded),
    tiers: new LocalCache(LOCAL_CACHE_ENTRIES, maxAgeMs, bounded),
    markets: new LocalCache(LOCAL_CACHE_ENTRIES, maxAgeMs, bounded),
    automatons: new LocalCache(LOCAL_CACHE_ENTRIES, maxAgeMs, bounded),
    // One entry: the whole watcher index, rebuilt after any agent's Reactor config changes.
    reactorWatchers: new LocalCache(1, maxAgeMs, bounded),
  };
  invalidation.onInvalidate('agent', (id) => caches.agentsByKeyHash.deleteWhere((a) => a._id === id));
  invalidation.onInvalidate('settings', (key) => caches.settings.delete(key));
  invalidation.onInvalidate('user', (id) => caches.tiers.delete(id));
  invalidation.onInvalidate('automaton', (id) => caches.automatons.delete(id));
  invalidation.onInvalidate('reactor', () => caches.reactorWatchers.clear());
  invalidation.onReset(() => {
    for (const cache of Object.values(caches)) cache.clear();
  });
  return caches;
}

export interface CreateDepsOptions {
  /**
   * Venues past the built-in ones built before composition (the test harness's), registered with
   * this process's adapters and trading engines beside those of `VENUE_MODULES`.
   */
  extraVenues?: readonly ExtraVenue[];
}

export async function createDeps(
  env: Env,
  infra: Infrastructure,
  log: Logger,
  { extraVenues = [] }: CreateDepsOptions = {},
): Promise<Deps> {
  const mongo = await connectMongo(
    infra.mongoUri,
    env.MONGODB_DB,
    env.MONGODB_SERVER_SELECTION_TIMEOUT_MS,
    log,
    env.MONGODB_SLOW_COMMAND_MS,
  );
  watchMongo(mongo, infra.mongoUri, log);
  const models = { ...createModels(mongo), ...createVenueModels(mongo) };
  await ensureIndexes(models);
  await migrateStoredDocuments(models, log);
  const redis = await connectRedisWhenUp(infra, 'fail-fast', 'producer', log);
  redis.on('error', (err: Error) => log.warn({ err: err.message }, 'redis connection error'));
  const carried = await migrateLegacyDayCounters(redis, env.QUEUE_PREFIX);
  if (carried) log.info({ counters: carried }, 'daily trade counters moved to their owner-tagged keys');
  const queues = new QueueClient(redis, env.QUEUE_PREFIX, infra);
  const invalidation = await startInvalidation({
    redis: infra,
    prefix: env.QUEUE_PREFIX,
    publisher: redis,
    log,
  });
  const metrics = createMetrics(queues);
  const clock = () => new Date();
  const polygon = createPolygonRpc(env, metrics, log);
  const venues = [
    ...extraVenues,
    ...(await loadVenueModules(env, { source: venueModuleEnvironment(), log, metrics })),
  ];
  return {
    env,
    log,
    infra,
    mongo,
    models,
    redis,
    queues,
    metrics,
    venues: createVenues(env, models, metrics, log, clock, polygon, venues),
    trading: createTradingVenues(models, { polygon, redis }, venues),
    polygon,
    relayer: createRelayer(env, metrics, log),
    candles: createCandleSource(env, metrics, log),
    invalidation,
    caches: createLocalCaches(env, invalidation),
    walletRegistrations: solanaWalletRegistrations(models.SolanaWalletProof),
    walletCredentials: clobWalletCredentials({ models, env }),
    clock,
  };
}

export async function closeDeps(deps: Deps): Promise<void> {
  await deps.queues.close();
  deps.invalidation.close();
  deps.redis.disconnect();
  await deps.mongo.close();
}
