import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { InfraDeps } from '../../infra/infra-deps.js';
import { RedisLease } from '../../infra/redis-lease.js';
import type { FillFeedSource } from '../venues/fill-feed-source.js';
import type { ExternalVenueId } from '../venues/venue-id.js';
import { isExternalAdapter, type VenueRegistry } from '../venues/venue-registry.js';
import { followVenue, type FollowVenueDeps } from './follow-venue.js';
import { fillFeedMetrics, recordPoll, type FillFeedMetrics } from './fill-feed-metrics.js';

/** What the follower uses of the process (the composition root's Deps has all of it). */
export type FillFeedDeps = FollowVenueDeps &
  Pick<InfraDeps, 'redis' | 'log' | 'env' | 'metrics'> & { venues: VenueRegistry };

export interface FillFeedFollowerOptions {
  /** This process's name on the lease and the cursors; a fresh one by default. */
  holder?: string;
  /** Smaller ranges than the sources' own (tests of the catch-up). */
  maxBlocksPerRead?: number;
}

/** The lease every process's follower competes for: one follows, whatever the number of processes. */
export const fillFeedLeaseKey = (prefix: string) => `${prefix}:fill-feed:lease`;

/** A failing venue is logged at most this often (its polls go on every FILL_FEED_POLL_MS). */
const ERROR_LOG_EVERY_MS = 30_000;

/**
 * The fill feed's loop, started by the workers role of every process: every FILL_FEED_POLL_MS it
 * takes or renews the lease and, while it holds it, follows each venue whose adapter has a
 * `fillFeed`. Stopping finishes the poll in flight and gives the lease up, so that another process
 * takes over at its next poll rather than at the lease's expiry.
 */
export class FillFeedFollower {
  readonly holder: string;
  private readonly lease: RedisLease;
  private readonly feeds: { venue: ExternalVenueId; source: FillFeedSource }[];
  private stopping = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private holding = false;
  private readonly lastErrorLog = new Map<string, number>();
  private readonly metrics: FillFeedMetrics;

  constructor(
    private readonly deps: FillFeedDeps,
    private readonly opts: FillFeedFollowerOptions = {},
  ) {
    this.holder = opts.holder ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
    this.lease = new RedisLease(
      deps.redis,
      fillFeedLeaseKey(deps.env.QUEUE_PREFIX),
      this.holder,
      deps.env.FILL_FEED_LEASE_MS,
    );
    this.metrics = fillFeedMetrics(deps.metrics.registry);
    this.feeds = deps.venues
      .all()
      .filter(isExternalAdapter)
      .flatMap((a) => (a.fillFeed ? [{ venue: a.id, source: a.fillFeed }] : []));
  }

  /** Whether this follower held the lease at its last poll. */
  get leader(): boolean {
    return this.holding;
  }

  /** Venues followed (those with a fill feed). */
  get venues(): ExternalVenueId[] {
    return this.feeds.map((f) => f.venue);
  }

  start(): void {
    if (this.loop || this.feeds.length === 0) return;
    this.stopping = false;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.loop;
    this.loop = null;
    if (this.holding) {
      this.holding = false;
      this.metrics.leader.set(0);
      await this.lease
        .release()
        .catch((err: Error) =>
          this.deps.log.warn(
            { err: err.message },
            'fill feed: the lease could not be released; it expires by itself',
          ),
        );
    }
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      await this.poll();
      if (!this.stopping) await this.sleep(this.deps.env.FILL_FEED_POLL_MS);
    }
  }

  private async poll(): Promise<void> {
    if (!(await this.keepGoing())) return;
    for (const { venue, source } of this.feeds) {
      try {
        const polled = await followVenue(this.deps, venue, source, {
          confirmations: this.deps.env.FILL_FEED_CONFIRMATIONS,
          maxBlocksPerRead: this.opts.maxBlocksPerRead ?? source.maxBlocksPerRead,
          holder: this.holder,
          keepGoing: () => this.keepGoing(),
        });
        recordPoll(this.metrics, venue, polled.cursor, polled.fills);
      } catch (err) {
        this.logError(venue, err);
      }
    }
  }

  /** Renews (or takes) the lease; false when stopping or another process holds it. */
  private async keepGoing(): Promise<boolean> {
    if (this.stopping) return false;
    try {
      const held = await this.lease.acquireOrRenew();
      if (held !== this.holding)
        this.deps.log.info(
          { holder: this.holder, venues: this.venues },
          held ? 'fill feed: following' : 'fill feed: lease lost',
        );
      this.holding = held;
    } catch (err) {
      // Redis is down: the lease cannot be known to be ours, so this process does not follow.
      this.holding = false;
      this.logError('lease', err);
    }
    this.metrics.leader.set(this.holding ? 1 : 0);
    return this.holding && !this.stopping;
  }

  private logError(what: string, err: unknown): void {
    const now = Date.now();
    if (now - (this.lastErrorLog.get(what) ?? 0) < ERROR_LOG_EVERY_MS) return;
    this.lastErrorLog.set(what, now);
    this.deps.log.warn({ venue: what, err: (err as Error).message }, 'fill feed: poll failed; retrying');
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }
}

/** Starts the follower of this process unless FILL_FEED_ENABLED is false; `stop` releases its lease. */
export function startFillFeed(deps: FillFeedDeps, opts?: FillFeedFollowerOptions): { stop(): Promise<void> } {
  if (!deps.env.FILL_FEED_ENABLED) return { stop: async () => undefined };
  const follower = new FillFeedFollower(deps, opts);
  follower.start();
  return { stop: () => follower.stop() };
}
