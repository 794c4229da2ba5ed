import { Counter, Gauge, Histogram, type Metric, type Registry } from 'prom-client';
import type { CircuitState } from './circuit-breaker.js';

/**
 * How each outbound request to a venue ended. One count per HTTP attempt (retries included, so a
 * retry storm shows), plus one `circuit_open` per call refused without a request.
 * `rate_limited` (429) is split from `client_error` because it is the venue throttling us, not a
 * bad request of ours.
 */
export type VenueOutcome =
  | 'ok'
  | 'not_found'
  | 'client_error'
  | 'rate_limited'
  | 'server_error'
  | 'timeout'
  | 'network'
  | 'schema'
  | 'circuit_open';

export interface VenueMetrics {
  requests: Counter<'venue' | 'endpoint' | 'outcome'>;
  duration: Histogram<'venue' | 'endpoint'>;
  circuitState: Gauge<'venue' | 'host'>;
  /**
   * Registers where a client's breaker state is read at scrape time, so the gauge shows an open
   * circuit turning half-open even when no request has touched the client since. One source per
   * venue+host: a later client for the same pair replaces the earlier one.
   */
  trackCircuit(venue: string, host: string, read: () => CircuitState): void;
}

export const CIRCUIT_STATE_VALUE: Record<CircuitState, number> = { closed: 0, half_open: 1, open: 2 };

// One VenueMetrics per registry: several clients (and tests) call createVenueMetrics on the same
// registry, and prom-client throws on registering a metric name twice.
const byRegistry = new WeakMap<Registry, VenueMetrics>();

export function createVenueMetrics(registry: Registry): VenueMetrics {
  const cached = byRegistry.get(registry);
  if (cached) return cached;

  const circuitSources = new Map<string, { venue: string; host: string; read: () => CircuitState }>();
  const requests = reuse<Counter<'venue' | 'endpoint' | 'outcome'>>(
    registry,
    'venue_requests_total',
    () =>
      new Counter({
        name: 'venue_requests_total',
        help: 'Outbound requests to external venues by endpoint and outcome (each retry counts)',
        labelNames: ['venue', 'endpoint', 'outcome'] as const,
        registers: [registry],
      }),
  );
  const duration = reuse<Histogram<'venue' | 'endpoint'>>(
    registry,
    'venue_request_duration_seconds',
    () =>
      new Histogram({
        name: 'venue_request_duration_seconds',
        help: 'Latency of outbound requests to external venues, per attempt',
        labelNames: ['venue', 'endpoint'] as const,
        buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
        registers: [registry],
      }),
  );
  const circuitState = reuse<Gauge<'venue' | 'host'>>(
    registry,
    'venue_circuit_state',
    () =>
      new Gauge({
        name: 'venue_circuit_state',
        help: 'Circuit breaker per venue host: 0 closed, 1 half-open, 2 open',
        labelNames: ['venue', 'host'] as const,
        registers: [registry],
        collect() {
          for (const { venue, host, read } of circuitSources.values()) {
            this.set({ venue, host }, CIRCUIT_STATE_VALUE[read()]);
          }
        },
      }),
  );

  const metrics: VenueMetrics = {
    requests,
    duration,
    circuitState,
    trackCircuit(venue, host, read) {
      circuitSources.set(`${venue}\u0000${host}`, { venue, host, read });
      circuitState.set({ venue, host }, CIRCUIT_STATE_VALUE[read()]);
    },
  };
  byRegistry.set(registry, metrics);
  return metrics;
}

/**
 * Takes the metric already in the registry when there is one (e.g. registered by another copy of
 * this module), else creates it.
 */
function reuse<M extends Metric>(registry: Registry, name: string, create: () => M): M {
  return (registry.getSingleMetric(name) as M | undefined) ?? create();
}
