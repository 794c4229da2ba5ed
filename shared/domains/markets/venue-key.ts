import type { VenueMarketKey } from '../venues/venue-adapter.js';
import type { MarketRecord } from './market.model.js';

/** The fields of an imported market that name it at its venue. */
export type VenueKeyFields = Pick<
  MarketRecord,
  '_id' | 'polymarketId' | 'polymarketTokenId' | 'polymarketNoTokenId' | 'kalshiTicker'
>;

/** How the venue addresses an imported market. */
export function venueKey(m: VenueKeyFields): VenueMarketKey {
  return m.polymarketId
    ? { externalId: m.polymarketId, yesTokenId: m.polymarketTokenId, noTokenId: m.polymarketNoTokenId }
    : { externalId: m.kalshiTicker ?? m._id };
}
