import type { Models } from '../models.js';
import type { VenueRegistry } from '../venues/venue-registry.js';
import { importableIdFields } from '../venues/venue-ref-fields.js';
import { importedMarketId } from './imported-market.js';
import type { ImportableQuery } from './import.schemas.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type ListImportableDeps = { models: Models; venues: VenueRegistry };

/** Polymarket's own floor for `min_volume` (client-contract §5.6): thinner markets are noise. */
const MIN_VOLUME_FLOOR = 1000;

/**
 * `GET /api/sdk/markets/importable`: open venue markets by 24 h volume that are not imported yet,
 * each with the `url` to import it by.
 */
export async function listImportable(deps: ListImportableDeps, q: ImportableQuery) {
  const venue = deps.venues.get(q.venue);
  const minVolume = Math.max(MIN_VOLUME_FLOOR, q.min_volume);
  // Ask for more than the page: some of them are already here and drop out below.
  const open = await venue.listOpen({
    limit: Math.min(500, q.limit * 3),
    minVolume,
    q: q.q,
    category: q.category,
  });
  const ids = open.map((m) => importedMarketId(q.venue, m.externalId));
  const here = new Set(
    (await deps.models.Market.find({ _id: { $in: ids } }, { _id: 1 }).lean()).map((m) => m._id),
  );
  const markets = open
    .filter((m, i) => !here.has(ids[i]!) && !m.unsupported)
    .slice(0, q.limit)
    .map((m) => ({
      question: m.question,
      url: m.url,
      venue: q.venue,
      ...importableIdFields(q.venue, m.externalId),
      current_price: m.yesPrice,
      volume_24h: m.volume24h,
      liquidity: m.liquidity,
      event_name: m.eventName,
      outcome_name: m.outcomeName,
      category: m.category,
      tags: m.tags,
      end_date: m.endDate?.toISOString() ?? null,
    }));
  return {
    markets,
    total: markets.length,
    venue: q.venue,
    min_volume: minVolume,
    ...(q.min_volume < MIN_VOLUME_FLOOR
      ? { warning: `min_volume below ${MIN_VOLUME_FLOOR} is raised to ${MIN_VOLUME_FLOOR}.` }
      : {}),
  };
}
