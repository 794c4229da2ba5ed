import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';
import type { FeedBlock, FillFeedSource } from '../venues/fill-feed-source.js';
import type { ExternalVenueId } from '../venues/venue-id.js';
import type { FillFeedCursorRecord } from './fill-feed-cursor.model.js';
import { storeFills, withdrawMissing } from './store-fills.js';
import { chunks } from '../../util/chunks.js';

/** What following one venue uses of the process. */
export type FollowVenueDeps = Pick<InfraDeps, 'queues' | 'clock'> & {
  models: Pick<Models, 'VenueFill' | 'FillFeedCursor'>;
};

export interface FollowVenueOptions {
  /** Blocks kept for reorg detection (FILL_FEED_CONFIRMATIONS). */
  confirmations: number;
  /** At most this many blocks per read (the source's own bound unless smaller). */
  maxBlocksPerRead: number;
  /** This process, as the cursor records it. */
  holder: string;
  /** Asked before each range: false when the follower stops or lost its lease. */
  keepGoing: () => Promise<boolean>;
}

/** Ids per job: the jobs' schema takes at most 5,000. */
const IDS_PER_JOB = 5000;
/** The cursor's head fields are rewritten at least this often when nothing new was mined. */
const IDLE_STATUS_EVERY_MS = 5000;

type Cursor = Omit<FillFeedCursorRecord, '_id'>;

/** Where a poll left the venue's cursor (with the head it saw), and how many fill legs it read. */
export interface FollowedPoll {
  cursor: Cursor;
  fills: number;
}

/**
 * One poll of one venue: reads its head; when the newest block read is no longer on the chain,
 * rewinds to the last block that still is (a reorg); then reads the new blocks in ranges of at most
 * `maxBlocksPerRead` up to the head (a catch-up after an outage is many ranges), storing each
 * range's fills, enqueueing one `react-to-fills` per block that has some, and moving the cursor.
 * Fills go out at the head, unconfirmed: a reorg later withdraws what it replaced.
 */
export async function followVenue(
  deps: FollowVenueDeps,
  venue: ExternalVenueId,
  source: FillFeedSource,
  opts: FollowVenueOptions,
): Promise<FollowedPoll> {
  const head = await source.head();
  const stored = await deps.models.FillFeedCursor.findById(venue).lean();
  if (!stored) {
    // First start: follow from now on; what was mined before is nobody's signal any more.
    const start = startingCursor(head, opts.holder, deps.clock());
    await saveCursor(deps, venue, start);
    return { cursor: start, fills: 0 };
  }
  let cursor: Cursor = stored;
  // A node behind the one that answered last time (a load-balanced RPC): wait for it to catch up
  // rather than take the blocks it does not have yet for a reorg.
  if (head.number < cursor.block) return { cursor, fills: 0 };
  const fork = await forkPoint(source, cursor, head);
  if (fork) cursor = rewound(cursor, fork);

  const readLimit = Math.max(1, Math.min(opts.maxBlocksPerRead, source.maxBlocksPerRead));
  let moved = fork !== null;
  let read = 0;
  while (cursor.block < head.number && (await opts.keepGoing())) {
    const from = cursor.block + 1;
    const to = Math.min(head.number, cursor.block + readLimit);
    // The range's last header before its logs: a reorg between the two reads leaves the cursor
    // on a hash the chain no longer has, which the next poll sees.
    const end = to === head.number ? head : await source.block(to);
    if (!end) break;
    const fills = await source.fills(from, to);
    read += fills.length;
    const now = deps.clock();
    await storeFills(deps, fills, now);
    const withdrawn =
      cursor.reconcileThrough !== null && from <= cursor.reconcileThrough
        ? await withdrawMissing(deps, venue, { from, to }, fills, now)
        : [];
    await enqueueReactions(deps, fills);
    for (const ids of chunks(withdrawn, IDS_PER_JOB))
      await deps.queues.enqueue('withdraw-fills', { fillIds: ids });
    cursor = advanced(cursor, end, fills, head, opts, now);
    await saveCursor(deps, venue, cursor);
    moved = true;
  }
  const polled = { ...cursor, head: head.number, headAt: head.at };
  const idleFor = deps.clock().getTime() - cursor.polledAt.getTime();
  if (!moved && (head.number !== cursor.head || idleFor >= IDLE_STATUS_EVERY_MS))
    await saveCursor(deps, venue, { ...polled, polledAt: deps.clock(), holder: opts.holder });
  return { cursor: polled, fills: read };
}

/** One job per block with fills (ids in log order), so a block read again enqueues the same job. */
async function enqueueReactions(deps: FollowVenueDeps, fills: { _id: string; blockNumber: number }[]) {
  const byBlock = new Map<number, string[]>();
  for (const f of fills) byBlock.set(f.blockNumber, [...(byBlock.get(f.blockNumber) ?? []), f._id]);
  for (const ids of byBlock.values())
    for (const part of chunks(ids, IDS_PER_JOB))
      await deps.queues.enqueue('react-to-fills', { fillIds: part });
}

function startingCursor(head: FeedBlock, holder: string, now: Date): Cursor {
  return {
    block: head.number,
    blockHash: head.hash,
    blockAt: head.at,
    recent: [{ number: head.number, hash: head.hash }],
    reconcileThrough: null,
    head: head.number,
    headAt: head.at,
    polledAt: now,
    holder,
  };
}

/**
 * The newest block read that the chain still has, when the newest one it read is gone (a reorg);
 * null when nothing changed. Deeper than the recent hashes kept, the block below the oldest kept
 * is taken as the fork (a reorg past FILL_FEED_CONFIRMATIONS: final blocks are not re-read).
 */
async function forkPoint(source: FillFeedSource, cursor: Cursor, head: FeedBlock): Promise<FeedBlock | null> {
  const recent = cursor.recent.length ? cursor.recent : [{ number: cursor.block, hash: cursor.blockHash }];
  const top = recent.at(-1)!;
  const onChain =
    head.number === top.number
      ? head.hash
      : head.number === top.number + 1
        ? head.parentHash
        : (await source.block(top.number))?.hash;
  if (onChain === top.hash) return null;
  for (const known of recent.slice(0, -1).reverse()) {
    const block = await source.block(known.number);
    if (block?.hash === known.hash) return block;
  }
  const below = await source.block(Math.max(0, recent[0]!.number - 1));
  if (!below) throw new Error(`fill feed: no block ${recent[0]!.number - 1} to resume from after a reorg`);
  return below;
}

/** The cursor moved back to the fork: blocks above it are read again and compared. */
function rewound(cursor: Cursor, fork: FeedBlock): Cursor {
  return {
    ...cursor,
    block: fork.number,
    blockHash: fork.hash,
    blockAt: fork.at,
    recent: [
      ...cursor.recent.filter((r) => r.number < fork.number),
      { number: fork.number, hash: fork.hash },
    ],
    reconcileThrough: Math.max(cursor.reconcileThrough ?? 0, cursor.block),
  };
}

function advanced(
  cursor: Cursor,
  end: FeedBlock,
  fills: { blockNumber: number; blockHash: string }[],
  head: FeedBlock,
  opts: FollowVenueOptions,
  now: Date,
): Cursor {
  const hashes = new Map(cursor.recent.map((r) => [r.number, r.hash]));
  for (const f of fills) hashes.set(f.blockNumber, f.blockHash);
  hashes.set(end.number, end.hash);
  const recent = [...hashes]
    .filter(([n]) => n > end.number - opts.confirmations && n <= end.number)
    .sort(([a], [b]) => a - b)
    .map(([number, hash]) => ({ number, hash }));
  return {
    block: end.number,
    blockHash: end.hash,
    blockAt: end.at,
    recent,
    reconcileThrough:
      cursor.reconcileThrough !== null && end.number < cursor.reconcileThrough
        ? cursor.reconcileThrough
        : null,
    head: head.number,
    headAt: head.at,
    polledAt: now,
    holder: opts.holder,
  };
}

async function saveCursor(deps: FollowVenueDeps, venue: ExternalVenueId, cursor: Cursor): Promise<void> {
  await deps.models.FillFeedCursor.updateOne({ _id: venue }, { $set: cursor }, { upsert: true });
}
