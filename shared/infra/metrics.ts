import { collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { QueueClient } from './queue/queue-client.js';

export interface Metrics {
  registry: Registry;
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  /**
   * Venue matches still not final on chain past SETTLEMENT_OVERDUE_MINUTES, per venue: set by the
   * process that follows settlements (trading/venue-settlement.ts) on each run.
   */
  settlementsOverdue: Gauge<'venue'>;
}

/** One registry per process: default Node metrics, HTTP latency, and queue depths read at scrape time. */
export function createMetrics(queues: QueueClient): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  new Gauge({
    name: 'queue_jobs',
    help: 'BullMQ jobs per queue and state',
    labelNames: ['queue', 'state'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const counts = await queues.jobCounts().catch(() => null);
      if (!counts) return;
      for (const [queue, states] of Object.entries(counts)) {
        for (const [state, n] of Object.entries(states)) this.set({ queue, state }, n);
      }
    },
  });
  const settlementsOverdue = new Gauge({
    name: 'venue_settlements_overdue',
    help: 'Venue matches whose chain settlement is still not final past SETTLEMENT_OVERDUE_MINUTES',
    labelNames: ['venue'] as const,
    registers: [registry],
  });
  return { registry, httpDuration, settlementsOverdue };
}
