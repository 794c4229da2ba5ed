import type { MarketModel } from './market.model.js';
import type { MarketVenueRef } from './venue-ref.model.js';

/**
 * The columns one venue's markets kept before the venue reference replaced them, contributed by the
 * venue (its folder knows its own old columns), so that this migration names no venue.
 */
export interface LegacyVenueColumns {
  columns: readonly string[];
  /** Indexes of the columns: they index nothing once the columns are gone. */
  indexes: readonly string[];
  /** The reference the columns describe; null when they do not name a market of this venue. */
  refOf(m: Readonly<Record<string, unknown>>): MarketVenueRef | null;
}

/** A legacy column's value when it holds text (the columns were nullable strings). */
export const textColumn = (v: unknown) => (typeof v === 'string' ? v : null);

type LegacyMarket = { _id: string; venueRef?: MarketVenueRef | null } & Record<string, unknown>;

/** The reference the legacy columns describe; null for a sim market (every column null). */
const refFromColumns = (venues: readonly LegacyVenueColumns[], m: LegacyMarket) =>
  venues.reduce<MarketVenueRef | null>((ref, v) => ref ?? v.refOf(m), null);

/**
 * Moves the legacy per-venue columns of every market into `venueRef`. One atomic update per market,
 * whose filter is the columns as read: a market another process migrated (or rewrote) meanwhile no
 * longer matches and is left alone. Markets still carrying a column are what remains, so a run
 * killed half-way resumes where it stopped, and a run with nothing left to move writes nothing.
 * The raw collection is used because the model no longer knows the columns (it would drop them).
 */
export async function moveVenueColumnsIntoRef(
  Market: MarketModel,
  venues: readonly LegacyVenueColumns[],
): Promise<{ moved: number }> {
  const markets = Market.collection;
  const columns = venues.flatMap((v) => v.columns);
  const stillLegacy = { $or: columns.map((c) => ({ [c]: { $exists: true } })) };
  const projection = Object.fromEntries([...columns, 'venueRef'].map((c) => [c, 1]));
  let moved = 0;
  for await (const doc of markets.find(stillLegacy, { projection })) {
    const m = doc as unknown as LegacyMarket;
    const ref = refFromColumns(venues, m);
    const asRead = Object.fromEntries(columns.map((c) => [c, c in m ? m[c] : { $exists: false }]));
    const res = await markets.updateOne({ _id: m._id, ...asRead } as never, {
      // A reference already there (written by this version) is kept over an all-null set of columns.
      ...(ref || !m.venueRef ? { $set: { venueRef: ref } } : {}),
      $unset: Object.fromEntries(columns.map((c) => [c, ''])),
    });
    moved += res.modifiedCount;
  }
  for (const name of venues.flatMap((v) => v.indexes))
    if (await markets.indexExists(name)) await markets.dropIndex(name).catch(ignoreIndexNotFound);
  return { moved };
}

/** Another process dropped it between the check and the drop. */
function ignoreIndexNotFound(err: unknown): void {
  if ((err as { codeName?: string }).codeName !== 'IndexNotFound') throw err;
}
