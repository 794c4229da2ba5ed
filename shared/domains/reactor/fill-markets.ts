import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';
import type { VenueRegistry } from '../venues/venue-registry.js';
import type { VenueFill } from '../venues/venue-fill.js';
import type { ExternalVenueId } from '../venues/venue-id.js';
import { normalizeExternalId } from '../venues/venue-conventions.js';
import { byExternalIds } from '../markets/venue-ref.js';
import { importOnTheSpot } from '../imports/spot-import.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type FillMarketsDeps = Pick<InfraDeps, 'env' | 'redis' | 'clock' | 'log'> & {
  models: Models;
  venues: VenueRegistry;
};

/** Our market of a fill's venue market. */
export interface ResolvedMarket {
  id: string;
  question: string;
  slug: string | null;
}

/** The key of a venue market in the answer of `marketsOfFills`. */
export const fillMarketKey = (venue: ExternalVenueId, externalId: string) =>
  `${venue}|${normalizeExternalId(venue, externalId)}`;

/**
 * Takes one of the Reactor's on-the-spot imports of this hour (REACTOR_IMPORTS_PER_HOUR, shared by
 * every process): a whale trading many markets nobody imported cannot make us fetch them all.
 */
async function takeImport(deps: Pick<FillMarketsDeps, 'env' | 'redis' | 'clock'>): Promise<boolean> {
  const hour = deps.clock().toISOString().slice(0, 13);
  const key = `${deps.env.QUEUE_PREFIX}:reactor:imports:${hour}`;
  const replies = await deps.redis
    .multi()
    .incr(key)
    .expire(key, 2 * 3600)
    .exec();
  return Number(replies?.[0]?.[1] ?? Infinity) <= deps.env.REACTOR_IMPORTS_PER_HOUR;
}

/** Imports a fill's venue market now; null when the quota is spent or the venue refuses or lacks it. */
async function importFillMarket(deps: FillMarketsDeps, fill: VenueFill): Promise<string | null> {
  const externalId = fill.market!.externalId;
  if (!deps.venues.has(fill.venue)) return null;
  if (!(await takeImport(deps))) {
    deps.log.warn({ venue: fill.venue, market: externalId }, 'reactor import quota spent: fill skipped');
    return null;
  }
  const done = await importOnTheSpot(deps, fill.venue, externalId);
  if ('refused' in done) {
    deps.log.info(
      { venue: fill.venue, market: externalId, reason: done.refused },
      'reactor: fill market not imported',
    );
    return null;
  }
  return done.marketId;
}

/**
 * Our market of each fill's venue market, by `fillMarketKey`: read from the imported markets, and
 * imported on the spot when missing (within the hourly quota). A fill without a venue market, or
 * whose market could not be had, is absent. A venue that fails throws (the job is retried; the
 * markets imported meanwhile are found next time).
 */
export async function marketsOfFills(
  deps: FillMarketsDeps,
  fills: VenueFill[],
): Promise<Map<string, ResolvedMarket>> {
  const withMarket = fills.filter((f) => f.market);
  const found = await storedMarkets(
    deps,
    withMarket.map((f) => [f.venue, f.market!.externalId]),
  );
  const imported: [ExternalVenueId, string][] = [];
  const tried = new Set<string>();
  for (const f of withMarket) {
    const key = fillMarketKey(f.venue, f.market!.externalId);
    if (found.has(key) || tried.has(key)) continue;
    tried.add(key);
    if (await importFillMarket(deps, f)) imported.push([f.venue, f.market!.externalId]);
  }
  if (imported.length) for (const [key, m] of await storedMarkets(deps, imported)) found.set(key, m);
  return found;
}

/** The imported markets of these venue markets, by `fillMarketKey`: one read per venue. */
async function storedMarkets(deps: Pick<FillMarketsDeps, 'models'>, refs: [ExternalVenueId, string][]) {
  const byVenue = new Map<ExternalVenueId, string[]>();
  for (const [venue, id] of refs) byVenue.set(venue, [...(byVenue.get(venue) ?? []), id]);
  const found = new Map<string, ResolvedMarket>();
  for (const [venue, ids] of byVenue) {
    const stored = await deps.models.Market.find(byExternalIds(venue, ids), {
      question: 1,
      venueSlug: 1,
      venueRef: 1,
    }).lean();
    for (const m of stored)
      if (m.venueRef)
        found.set(fillMarketKey(venue, m.venueRef.externalId), {
          id: m._id,
          question: m.question,
          slug: m.venueSlug,
        });
  }
  return found;
}
