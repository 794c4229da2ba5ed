import type { Logger } from 'pino';
import { VenueHttpClient } from '../../infra/http/venue-http-client.js';
import type { VenueMetrics } from '../../infra/http/venue-metrics.js';
import type { VenueId } from './venue-id.js';

/** What every HTTP venue adapter is built with besides its hosts (VENUE_* settings, metrics, log). */
export interface VenueClientSettings {
  timeoutMs: number;
  retries: number;
  breakerFailures: number;
  breakerCooldownMs: number;
  metrics: VenueMetrics;
  log: Logger;
  now?: () => number;
  /** First retry's backoff (the client's default when absent); tests shorten it. */
  backoffMs?: number;
}

/** One venue host's client: its own circuit breaker, the shared timeouts, retries and metrics. */
export function venueClient(venue: VenueId, baseUrl: string, s: VenueClientSettings): VenueHttpClient {
  return new VenueHttpClient({
    venue,
    baseUrl,
    timeoutMs: s.timeoutMs,
    retries: s.retries,
    breaker: { failureThreshold: s.breakerFailures, cooldownMs: s.breakerCooldownMs },
    metrics: s.metrics,
    log: s.log,
    ...(s.now ? { now: s.now } : {}),
    ...(s.backoffMs === undefined ? {} : { backoffMs: s.backoffMs }),
  });
}
