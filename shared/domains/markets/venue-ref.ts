import type { VenueMarket } from '../venues/venue-adapter.js';
import { normalizeExternalId, storesNegRisk } from '../venues/venue-conventions.js';
import type { ExternalVenueId } from '../venues/venue-id.js';
import type { MarketVenueRef } from './venue-ref.model.js';

/** The reference of a venue market about to be stored. */
export function venueRefOf(venue: ExternalVenueId, m: VenueMarket): MarketVenueRef {
  return {
    venue,
    externalId: normalizeExternalId(venue, m.externalId),
    yesTokenId: m.yesTokenId ?? null,
    noTokenId: m.noTokenId ?? null,
    negRisk: storesNegRisk(venue) ? m.negRisk : null,
  };
}

export type VenueRefOn<V extends ExternalVenueId> = MarketVenueRef & { venue: V };

/** The market's reference when it lives on `venue`, else null. */
export function venueRefOn<V extends ExternalVenueId>(
  m: { venueRef?: MarketVenueRef | null } | null | undefined,
  venue: V,
): VenueRefOn<V> | null {
  const ref = m?.venueRef;
  return ref?.venue === venue ? (ref as VenueRefOn<V>) : null;
}

/** The query for the markets of `venue` with any of these external ids (served by the market index). */
export const byExternalIds = (venue: ExternalVenueId, ids: readonly string[]) => ({
  'venueRef.venue': venue,
  'venueRef.externalId': { $in: [...new Set(ids.map((id) => normalizeExternalId(venue, id)))] },
});
