import type { VenueMarketKey } from '../venues/venue-adapter.js';
import type { MarketRecord } from './market.model.js';

/** The fields of an imported market that name it at its venue. */
export type VenueKeyFields = Pick<MarketRecord, '_id' | 'venueRef'>;

/** How the venue addresses an imported market (a sim market: by its own id). */
export function venueKey(m: VenueKeyFields): VenueMarketKey {
  return m.venueRef ?? { externalId: m._id };
}
