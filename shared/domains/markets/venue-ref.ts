import type { VenueMarket } from '../venues/venue-adapter.js';
import type { ExternalVenueId } from '../venues/venue-id.js';
import type { MarketVenueRef } from './venue-ref.model.js';

/**
 * Condition ids are hex (any case on input), tickers upper case: stored ids and the ids a lookup
 * asks for go through here, so both spell a market the same way.
 */
export const normalizeExternalId = (venue: ExternalVenueId, id: string) =>
  venue === 'kalshi' ? id.toUpperCase() : id.toLowerCase();

/** The reference of a venue market about to be stored. */
export function venueRefOf(venue: ExternalVenueId, m: VenueMarket): MarketVenueRef {
  return {
    venue,
    externalId: normalizeExternalId(venue, m.externalId),
    yesTokenId: m.yesTokenId ?? null,
    noTokenId: m.noTokenId ?? null,
    negRisk: venue === 'polymarket' ? m.negRisk : null,
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
