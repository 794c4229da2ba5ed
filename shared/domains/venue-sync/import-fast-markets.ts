import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';
import type { VenueRegistry } from '../venues/venue-registry.js';
import { VenueHttpError } from '../../infra/http/venue-http-error.js';
import { insertImportedMarket } from '../imports/imported-market.js';
import { externalVenueIds } from '../venues/venue-id.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type ImportFastMarketsDeps = Pick<InfraDeps, 'log' | 'clock'> & {
  models: Models;
  venues: VenueRegistry;
};

/**
 * The `import-fast-markets` job: the venues' rolling crypto windows are imported as they are
 * announced, so `GET /api/sdk/fast-markets` always lists the live window and the next ones. They
 * then close and resolve through the same sync jobs as any imported market.
 */
export async function importFastMarkets(
  deps: ImportFastMarketsDeps,
): Promise<{ venue: string; seen: number; imported: number; error: string | null }[]> {
  const reports = [];
  for (const venueId of externalVenueIds()) {
    if (!deps.venues.has(venueId)) continue;
    const report = { venue: venueId, seen: 0, imported: 0, error: null as string | null };
    reports.push(report);
    try {
      const markets = await deps.venues.get(venueId).upcomingFastMarkets(deps.clock());
      for (const m of markets) {
        if (m.unsupported || m.closed || !m.acceptingOrders) continue;
        report.seen++;
        if (await insertImportedMarket(deps.models, venueId, m, deps.clock())) report.imported++;
      }
    } catch (err) {
      if (!(err instanceof VenueHttpError)) throw err;
      report.error = err.message;
      deps.log.warn(
        { venue: venueId, kind: err.kind, err: err.message },
        'fast-market import failed; will retry',
      );
    }
  }
  return reports;
}
