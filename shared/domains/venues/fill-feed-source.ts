import type { VenueFill } from './venue-fill.js';

/**
 * A venue's settlement layer read as a chain of blocks: the capability `VenueAdapter.fillFeed` of
 * venues that publish who traded (Polymarket's exchanges on Polygon). The fill feed
 * (shared/domains/fill-feed/) follows it block by block, keeps the hashes of recent blocks to see
 * reorgs, and stores the fills; the source only reads.
 */
export interface FeedBlock {
  number: number;
  hash: string;
  parentHash: string;
  /** When the block was produced (the chain's timestamp). */
  at: Date;
}

export interface FillFeedSource {
  /**
   * The most blocks one `fills` call may span: a catch-up after an outage reads in ranges of at
   * most this many blocks (nodes refuse or time out on wide log queries).
   */
  readonly maxBlocksPerRead: number;
  /** The newest block. */
  head(): Promise<FeedBlock>;
  /** One block by number; null past the head. */
  block(number: number): Promise<FeedBlock | null>;
  /**
   * Every fill settled in blocks `from`..`to` (inclusive), in chain order, with the hash of the
   * block that holds it (`withdrawnAt` null). A transport failure throws: the range is read again.
   */
  fills(from: number, to: number): Promise<VenueFill[]>;
}
