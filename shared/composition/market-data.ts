import type { Env } from '../infra/config/env.js';
import { createVenueMetrics } from '../infra/http/venue-metrics.js';
import { VenueHttpClient } from '../infra/http/venue-http-client.js';
import type { Logger } from '../infra/logger.js';
import type { Metrics } from '../infra/metrics.js';
import { BinanceKlines } from '../domains/candles/binance-klines.js';

/**
 * The candle source of this process: Binance's public klines at BINANCE_BASE_URL, with the venue
 * clients' timeouts, retries and breaker settings; metrics and health under `binance`.
 */
export function createCandleSource(env: Env, metrics: Metrics, log: Logger): BinanceKlines {
  return new BinanceKlines(
    new VenueHttpClient({
      venue: 'binance',
      baseUrl: env.BINANCE_BASE_URL,
      timeoutMs: env.VENUE_TIMEOUT_MS,
      retries: env.VENUE_RETRIES,
      breaker: { failureThreshold: env.VENUE_BREAKER_FAILURES, cooldownMs: env.VENUE_BREAKER_COOLDOWN_MS },
      metrics: createVenueMetrics(metrics.registry),
      log: log.child({ component: 'market-data', source: 'binance' }),
    }),
  );
}
