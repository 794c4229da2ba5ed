import type { Models } from '../models.js';
import type { MarketRecord, MarketStatus } from '../markets/market.model.js';
import type { ExternalVenueId } from '../venues/venue-id.js';

/**
 * Markets per page read here. The adapters split their venue requests into the venues' own batch
 * sizes (about 100, polymarket.md §2.1); a larger page means fewer scans on a database that cannot
 * serve `_id > after` ranges from an index (the development server).
 */
export const SYNC_BATCH = 500;

export const SYNC_FIELDS = {
  status: 1,
  venueRef: 1,
  book: 1,
  currentPrice: 1,
  createdAt: 1,
  // The shock detector watches the sports markets among them (shock-ladder/detect-shocks.ts).
  tags: 1,
} as const;
export type SyncedMarket = Pick<
  MarketRecord,
  '_id' | 'status' | 'venueRef' | 'book' | 'currentPrice' | 'createdAt' | 'tags'
>;

/** The imported markets of a venue in the given states, in `_id` order, a batch at a time. */
export async function* importedBatches(
  models: Models,
  venue: ExternalVenueId,
  statuses: MarketStatus[],
): AsyncGenerator<SyncedMarket[]> {
  let after = '';
  for (;;) {
    const batch = (await models.Market.find(
      {
        importSource: venue,
        status: { $in: statuses },
        // A market without a reference on this venue cannot be asked about.
        'venueRef.venue': venue,
        _id: { $gt: after },
      },
      SYNC_FIELDS,
    )
      .sort({ _id: 1 })
      .limit(SYNC_BATCH)
      .lean()) as SyncedMarket[];
    if (!batch.length) return;
    yield batch;
    after = batch.at(-1)!._id;
  }
}
