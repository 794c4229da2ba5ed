import type { InfraDeps } from '../../infra/infra-deps.js';
import { cachedRead } from '../../infra/read-cache.js';
import { VenueHttpError } from '../../infra/http/venue-http-error.js';
import { chunks } from '../../util/chunks.js';
import type { ExternalVenueAdapter } from '../venues/venue-registry.js';
import type { WalletPosition } from '../venues/venue-adapter.js';

export type WhalePositionsDeps = Pick<InfraDeps, 'env' | 'redis'>;

/** Wallets whose positions are read at once: the venue's public API is shared by every agent. */
const PARALLEL_READS = 5;

export interface WhaleHoldings {
  /** Each wallet read, with its positions (as the venue lists them). */
  read: Map<string, WalletPosition[]>;
  /** Wallets the venue did not answer for, with why. */
  failed: Map<string, string>;
}

/**
 * One wallet's public positions on the venue that publishes them, shared by every agent asking for
 * COPYTRADING_POSITIONS_CACHE_SECONDS (a plan is asked every few minutes by many agents copying the
 * same well-known wallets; the venue's public API would otherwise see each of them).
 */
function positionsOf(deps: WhalePositionsDeps, venue: ExternalVenueAdapter, wallet: string) {
  const seconds = deps.env.COPYTRADING_POSITIONS_CACHE_SECONDS;
  const read = () => venue.walletPositions(wallet);
  if (seconds === 0) return read();
  return cachedRead(
    deps.redis,
    deps.env.QUEUE_PREFIX,
    'copytrading-wallet',
    [venue.id, wallet],
    seconds,
    read,
  );
}

/**
 * The current positions of each wallet (lower-case addresses), a few at a time. A wallet the venue
 * cannot answer for is reported, not fatal: the plan is made from the others, without exits.
 */
export async function whaleHoldings(
  deps: WhalePositionsDeps,
  venue: ExternalVenueAdapter,
  wallets: string[],
): Promise<WhaleHoldings> {
  const read = new Map<string, WalletPosition[]>();
  const failed = new Map<string, string>();
  for (const batch of chunks(wallets, PARALLEL_READS)) {
    const answers = await Promise.allSettled(batch.map((w) => positionsOf(deps, venue, w)));
    answers.forEach((a, i) => {
      const wallet = batch[i]!;
      if (a.status === 'fulfilled') read.set(wallet, a.value);
      else if (a.reason instanceof VenueHttpError) failed.set(wallet, a.reason.message);
      else throw a.reason;
    });
  }
  return { read, failed };
}
