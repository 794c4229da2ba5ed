import type { Env } from '../infra/config/env.js';
import { polymarketWalletCash } from '../domains/venues/polymarket/onchain/wallet-cash.js';
import { createVenueMetrics } from '../infra/http/venue-metrics.js';
import { VenueHttpClient } from '../infra/http/venue-http-client.js';
import { PolygonRpc } from '../domains/venues/polymarket/onchain/polygon-rpc.js';
import { Relayer } from '../domains/venues/polymarket/onchain/deposit-wallet/relayer.js';
import type { Logger } from '../infra/logger.js';
import type { RedisClient } from '../infra/redis.js';
import type { Metrics } from '../infra/metrics.js';
import type { Models } from '../domains/models.js';
import { KalshiAdapter } from '../domains/venues/kalshi/kalshi-adapter.js';
import { PolymarketAdapter } from '../domains/venues/polymarket/polymarket-adapter.js';
import { SimAdapter } from '../domains/venues/sim/sim-adapter.js';
import { VenueRegistry } from '../domains/venues/venue-registry.js';
import { TradingVenues, type VenueTrading } from '../domains/trading/venue-trading.js';
import type { VenueAdapter } from '../domains/venues/venue-adapter.js';
import { kalshiVenueTrading } from '../domains/venues/kalshi/kalshi-venue-trading.js';
import type { VenueModels } from './venue-models.js';
import { polymarketVenueTradingOn } from '../domains/venues/polymarket/polymarket-venue-trading.js';
import { simVenueTrading } from '../domains/venues/sim/sim-venue-trading.js';

/**
 * A venue added to this process past the built-in ones (a deployment's own, or a test's): its
 * market data and its trading, under one id. `createDeps` takes them as `extraVenues`.
 */
export interface ExtraVenue {
  adapter: VenueAdapter;
  trading: VenueTrading;
}

/**
 * The venue adapters of this process: sim over our own books, Polymarket and Kalshi at the
 * configured hosts (the real public ones by default, the emulators with VENUES=emulated).
 */
export function createVenues(
  env: Env,
  models: Models,
  metrics: Metrics,
  log: Logger,
  clock: () => Date,
  polygon: PolygonRpc,
  extraVenues: readonly ExtraVenue[] = [],
): VenueRegistry {
  const venueMetrics = createVenueMetrics(metrics.registry);
  const http = {
    timeoutMs: env.VENUE_TIMEOUT_MS,
    retries: env.VENUE_RETRIES,
    breakerFailures: env.VENUE_BREAKER_FAILURES,
    breakerCooldownMs: env.VENUE_BREAKER_COOLDOWN_MS,
    metrics: venueMetrics,
  };
  return new VenueRegistry([
    new SimAdapter(models, clock),
    new PolymarketAdapter({
      gammaUrl: env.POLYMARKET_GAMMA_URL,
      clobUrl: env.POLYMARKET_CLOB_URL,
      dataUrl: env.POLYMARKET_DATA_URL,
      // Its fill feed reads the exchanges' events through this process's Polygon client.
      polygon,
      ...http,
      log: log.child({ component: 'venue', venue: 'polymarket' }),
    }),
    new KalshiAdapter({
      baseUrl: env.KALSHI_BASE_URL,
      ...http,
      log: log.child({ component: 'venue', venue: 'kalshi' }),
    }),
    ...extraVenues.map((v) => v.adapter),
  ]);
}

/** The trading engines of this process, one per venue; each reaches its venue through `createVenues`'s adapters. */
export function createTradingVenues(
  models: VenueModels,
  { polygon, redis }: { polygon: PolygonRpc; redis: RedisClient },
  extraVenues: readonly ExtraVenue[] = [],
): TradingVenues {
  for (const v of extraVenues)
    if (v.trading.venue !== v.adapter.id)
      throw new Error(`venue ${v.adapter.id}: its trading is registered as ${v.trading.venue}`);
  return new TradingVenues([
    simVenueTrading,
    // The wallet's pUSD is read through this process's Polygon client (its breaker and metrics).
    // Managed wallets' approvals are sent through it too, under the per-wallet nonce lock in Redis.
    {
      ...polymarketVenueTradingOn({
        polygon,
        redis,
        WalletApproval: models.WalletApproval,
        ClobCredential: models.ClobCredential,
      }),
      walletCash: polymarketWalletCash(polygon),
    },
    kalshiVenueTrading(models.KalshiQuote, models.SolanaWalletProof),
    ...extraVenues.map((v) => v.trading),
  ]);
}

/** A client of one upstream host with the venue clients' timeouts, retries, breaker and metrics. */
export function upstreamClient(env: Env, metrics: Metrics, log: Logger, venue: string, baseUrl: string) {
  return new VenueHttpClient({
    venue,
    baseUrl,
    timeoutMs: env.VENUE_TIMEOUT_MS,
    retries: env.VENUE_RETRIES,
    breaker: { failureThreshold: env.VENUE_BREAKER_FAILURES, cooldownMs: env.VENUE_BREAKER_COOLDOWN_MS },
    metrics: createVenueMetrics(metrics.registry),
    log: log.child({ component: 'venue', venue }),
  });
}

/**
 * The Polygon JSON-RPC client of this process (allowance reads, the RPC proxy), with the same
 * timeouts, retries and breaker settings as the venue clients; metrics under venue `polygon`.
 */
export function createPolygonRpc(env: Env, metrics: Metrics, log: Logger): PolygonRpc {
  return new PolygonRpc(upstreamClient(env, metrics, log, 'polygon', env.POLYGON_RPC_URL));
}

/**
 * Polymarket's relayer client (deposit wallets), with the venue clients' timeouts and breaker;
 * metrics under venue `polymarket-relayer`. Without builder credentials it is not `configured`.
 */
export function createRelayer(env: Env, metrics: Metrics, log: Logger): Relayer {
  return new Relayer(
    upstreamClient(env, metrics, log, 'polymarket-relayer', env.POLYMARKET_RELAYER_URL),
    env,
  );
}
