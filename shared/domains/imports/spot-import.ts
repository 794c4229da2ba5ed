import type { ExternalVenueId } from '../venues/venue-id.js';
import { importedMarketId, insertImportedMarket, notImportableReason } from './imported-market.js';
import { importingOf, type RunImportDeps } from './run-import.js';

export type SpotImport = { marketId: string; created: boolean } | { refused: string };

/**
 * One venue market, named by its venue id (VenueMarketKey.externalId), put into the catalogue now,
 * without the import queue: for flows that meet a market they must trade at once (a copied whale
 * position). The caller bounds how many it imports and charges any quota; `created`
 * says whether this call inserted it (concurrent callers race on the id, one of them creates it).
 */
export async function importOnTheSpot(
  deps: RunImportDeps,
  venue: ExternalVenueId,
  externalId: string,
): Promise<SpotImport> {
  const label = importingOf(deps, venue).label;
  const m = await deps.venues.get(venue).market({ externalId });
  if (!m) return { refused: `${label} does not know the market ${externalId}` };
  const reason = notImportableReason(m, label);
  if (reason) return { refused: reason };
  const created = await insertImportedMarket(deps.models, venue, m, deps.clock());
  return { marketId: importedMarketId(venue, m.externalId), created };
}
