import type { Connection } from 'mongoose';
import type { Redis } from 'ioredis';
import type { Env } from '../infra/config/env.js';
import type { Logger } from '../infra/logger.js';
import type { QueueClient } from '../infra/queue/queue-client.js';
import type { Metrics } from '../infra/metrics.js';
import type { Infrastructure } from '../infra/embedded/infrastructure.js';
import type { VenueRegistry } from '../domains/venues/venue-registry.js';
import type { TradingVenues } from '../domains/trading/venue-trading.js';
import type { PolygonRpc } from '../domains/venues/polymarket/onchain/polygon-rpc.js';
import type { Models } from '../domains/models.js';
import type { Invalidation } from '../infra/invalidation.js';
import type { LocalCache } from '../infra/local-cache.js';
import type { AgentRecord } from '../domains/agents/agent.model.js';
import type { TradingSettings } from '../domains/limits/trading-settings.model.js';
import type { Tier } from '../domains/users/user.model.js';
import type { MarketRecord } from '../domains/markets/market.model.js';
import type { ResolveHost } from '../domains/webhooks/url-guard.js';
import type { VenueModels } from './venue-models.js';

/*
 * The types of the composition root: what a process hands its roles and domain functions. Built by
 * create-deps.ts, kept apart from it so that importing the type does not import every venue's code.
 */
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

/** Everything a role needs, built once per process (the composition root) and passed down explicitly. */
export interface Deps {
  env: Env;
  log: Logger;
  infra: Infrastructure;
  mongo: Connection;
  /** The domains' models and the venues' own (createVenueModels). */
  models: Models & VenueModels;
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
