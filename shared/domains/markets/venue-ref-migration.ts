import type { MarketModel } from './market.model.js';
import type { MarketVenueRef } from './venue-ref.model.js';

/** The columns markets kept per venue before the venue reference replaced them. */
const LEGACY_COLUMNS = [
  'polymarketId',
  'polymarketTokenId',
  'polymarketNoTokenId',
  'polymarketNegRisk',
  'kalshiTicker',
] as const;
type LegacyMarket = { _id: string; venueRef?: MarketVenueRef | null } & {
  [C in (typeof LEGACY_COLUMNS)[number]]?: string | boolean | null;
};

/** Indexes of the legacy columns: they index nothing once the columns are gone. */
const LEGACY_INDEXES = ['polymarketId_1', 'kalshiTicker_1'];

const text = (v: unknown) => (typeof v === 'string' ? v : null);

/** The reference the legacy columns describe; null for a sim market (every column null). */
function refFromColumns(m: LegacyMarket): MarketVenueRef | null {
  const polymarketId = text(m.polymarketId);
  if (polymarketId)
    return {
      venue: 'polymarket',
      externalId: polymarketId,
      yesTokenId: text(m.polymarketTokenId),
      noTokenId: text(m.polymarketNoTokenId),
      negRisk: typeof m.polymarketNegRisk === 'boolean' ? m.polymarketNegRisk : null,
    };
  const ticker = text(m.kalshiTicker);
  if (ticker)
    return { venue: 'kalshi', externalId: ticker, yesTokenId: null, noTokenId: null, negRisk: null };
  return null;
}

/**
 * Moves the legacy per-venue columns of every market into `venueRef`. One atomic update per market,
 * whose filter is the columns as read: a market another process migrated (or rewrote) meanwhile no
 * longer matches and is left alone. Markets still carrying a column are what remains, so a run
 * killed half-way resumes where it stopped, and a run with nothing left to move writes nothing.
 * The raw collection is used because the model no longer knows the columns (it would drop them).
 */
export async function moveVenueColumnsIntoRef(Market: MarketModel): Promise<{ moved: number }> {
  const markets = Market.collection;
  const stillLegacy = { $or: LEGACY_COLUMNS.map((c) => ({ [c]: { $exists: true } })) };
  const projection = Object.fromEntries([...LEGACY_COLUMNS, 'venueRef'].map((c) => [c, 1]));
  let moved = 0;
  for await (const doc of markets.find(stillLegacy, { projection })) {
    const m = doc as unknown as LegacyMarket;
    const ref = refFromColumns(m);
    const asRead = Object.fromEntries(LEGACY_COLUMNS.map((c) => [c, c in m ? m[c] : { $exists: false }]));
    const res = await markets.updateOne({ _id: m._id, ...asRead } as never, {
      // A reference already there (written by this version) is kept over an all-null set of columns.
      ...(ref || !m.venueRef ? { $set: { venueRef: ref } } : {}),
      $unset: Object.fromEntries(LEGACY_COLUMNS.map((c) => [c, ''])),
    });
    moved += res.modifiedCount;
  }
  for (const name of LEGACY_INDEXES)
    if (await markets.indexExists(name)) await markets.dropIndex(name).catch(ignoreIndexNotFound);
  return { moved };
}

/** Another process dropped it between the check and the drop. */
function ignoreIndexNotFound(err: unknown): void {
  if ((err as { codeName?: string }).codeName !== 'IndexNotFound') throw err;
}
