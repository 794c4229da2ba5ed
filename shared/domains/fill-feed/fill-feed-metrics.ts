import { Counter, Gauge, type Registry } from 'prom-client';
import type { FillFeedCursorRecord } from './fill-feed-cursor.model.js';

/**
 * The fill feed's Prometheus series, on the registry of the process that runs the follower (its
 * `GET /metrics`): the process holding the lease moves them, the others show `fill_feed_leader` 0.
 * Created once per registry, so that several followers of one process (tests) share them.
 */
export interface FillFeedMetrics {
  leader: Gauge;
  cursorBlock: Gauge<'venue'>;
  headBlock: Gauge<'venue'>;
  lagBlocks: Gauge<'venue'>;
  lagSeconds: Gauge<'venue'>;
  fills: Counter<'venue'>;
}

const byRegistry = new WeakMap<Registry, FillFeedMetrics>();

export function fillFeedMetrics(registry: Registry): FillFeedMetrics {
  const known = byRegistry.get(registry);
  if (known) return known;
  const registers = [registry];
  const perVenue = { labelNames: ['venue'] as const, registers };
  const metrics: FillFeedMetrics = {
    leader: new Gauge({
      name: 'fill_feed_leader',
      help: 'This process holds the fill feed lease (1) or not (0)',
      registers,
    }),
    cursorBlock: new Gauge({
      name: 'fill_feed_cursor_block',
      help: 'Last block whose fills are stored and enqueued',
      ...perVenue,
    }),
    headBlock: new Gauge({
      name: 'fill_feed_head_block',
      help: "The venue chain's newest block at the last poll",
      ...perVenue,
    }),
    lagBlocks: new Gauge({
      name: 'fill_feed_lag_blocks',
      help: 'Blocks between the head and the cursor',
      ...perVenue,
    }),
    lagSeconds: new Gauge({
      name: 'fill_feed_lag_seconds',
      help: 'Chain time between the head and the cursor block',
      ...perVenue,
    }),
    fills: new Counter({
      name: 'fill_feed_fills_total',
      help: 'Fill legs read from the venue (a range read again counts again)',
      ...perVenue,
    }),
  };
  byRegistry.set(registry, metrics);
  return metrics;
}

/** Sets the venue's gauges from the cursor a poll left. */
export function recordPoll(
  metrics: FillFeedMetrics,
  venue: string,
  cursor: Pick<FillFeedCursorRecord, 'block' | 'blockAt' | 'head' | 'headAt'>,
  fills: number,
): void {
  metrics.cursorBlock.set({ venue }, cursor.block);
  metrics.headBlock.set({ venue }, cursor.head);
  metrics.lagBlocks.set({ venue }, Math.max(0, cursor.head - cursor.block));
  metrics.lagSeconds.set({ venue }, Math.max(0, (cursor.headAt.getTime() - cursor.blockAt.getTime()) / 1000));
  if (fills > 0) metrics.fills.inc({ venue }, fills);
}
