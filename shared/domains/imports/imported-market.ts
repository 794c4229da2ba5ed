import { MICRO } from '../money.js';
import { seedUuid } from '../markets/catalogue.js';
import { FAST_WINDOWS, type FastWindow } from '../markets/fast-markets.js';
import type { MarketRecord } from '../markets/market.model.js';
import { venueRefOf } from '../markets/venue-ref.js';
import type { Models } from '../models.js';
import { isDuplicateKey } from '../refusal.js';
import { clampPrice, DEFAULT_LIQUIDITY, stateAt } from '../markets/lmsr.js';
import type { VenueMarket } from '../venues/venue-adapter.js';
import type { ExternalVenueId } from '../venues/venue-id.js';

/**
 * The service id of a venue market, derived from its venue id: every replica and every concurrent
 * import computes the same UUID, so the `_id` index is the unique index on the condition id and
 * twenty agents importing one event at once get one set of markets.
 */
export const importedMarketId = (venue: ExternalVenueId, externalId: string) =>
  seedUuid(`${venue}:${externalId.toLowerCase()}`);

/** Polymarket's rolling crypto windows, e.g. `btc-updown-15m-1767200400`. */
const FAST_SLUG = /^(btc|eth|sol|xrp|doge)-updown-(5m|15m|1h|4h)-\d+$/;

/**
 * Tags that make an imported market findable, lower-cased: the venue's labels (`world cup`) and their
 * slugs (`world-cup`, what skills filter by), the venue's name, plus `fast`/`fast-<window>`/asset for
 * rolling windows.
 */
export function importedTags(m: VenueMarket): string[] {
  const tags = new Set([...m.tags, ...(m.tagSlugs ?? [])].map((t) => t.toLowerCase()));
  tags.add(m.venue);
  const fast = m.slug ? FAST_SLUG.exec(m.slug) : null;
  if (fast && fast[2]! in FAST_WINDOWS) {
    tags.add('fast');
    tags.add(`fast-${fast[2] as FastWindow}`);
    tags.add(fast[1]!);
  }
  return [...tags];
}

/** Why a venue market cannot be imported (an unsupported protocol, resolved, closed), or null when it can. */
export function notImportableReason(m: VenueMarket, label: string): string | null {
  if (m.unsupported) return m.unsupported;
  if (m.resolution) return `resolved on ${label}`;
  if (m.closed || !m.acceptingOrders) return `closed for trading on ${label}`;
  return null;
}

/**
 * A new market record for a venue market: its sim book is an LMSR anchored at the venue's price,
 * so the first sim trade fills where the venue trades, and the re-anchoring job keeps it there.
 */
export function newImportedMarket(
  venue: ExternalVenueId,
  m: VenueMarket,
  now: Date,
  importedBy: string | null = null,
): MarketRecord {
  const price = clampPrice(m.yesPrice ?? 0.5);
  // Deeper books where the venue has more flow; never shallower than the sim cap allows.
  const b = m.volume24h > 100_000 ? 10_000 : m.volume24h > 10_000 ? 5_000 : DEFAULT_LIQUIDITY;
  const s = stateAt(b, price);
  const open = !m.closed && m.acceptingOrders;
  return {
    _id: importedMarketId(venue, m.externalId),
    question: m.question,
    description: m.description,
    status: open ? 'active' : 'closed',
    importSource: venue,
    category: m.category,
    tags: importedTags(m),
    url: m.url,
    eventId: m.eventId,
    eventName: m.eventName,
    outcomeName: m.outcomeName,
    eventRef: m.eventSlug,
    resolvesAt: m.endDate,
    resolvedAt: null,
    settledAt: null,
    outcome: null,
    resolutionCriteria: m.description,
    currentPrice: price,
    externalPriceYes: m.yesPrice,
    externalBestBid: m.bestBid,
    externalBestAsk: m.bestAsk,
    externalSpread: m.bestBid !== null && m.bestAsk !== null ? m.bestAsk - m.bestBid : null,
    externalQuotedAt: now,
    volume24hMicro: Math.round(m.volume24h * MICRO),
    baseVolume24hMicro: Math.round(m.volume24h * MICRO),
    volumeTotalMicro: Math.round(m.volumeTotal * MICRO),
    lastTradeAt: null,
    venueRef: venueRefOf(venue, m),
    venueSlug: m.slug,
    importedBy,
    tickSize: m.tickSize,
    feeRateBps: m.feeRateBps,
    isSdkOnly: false,
    isPaid: m.feeRateBps > 0,
    simTradeable: true,
    isOrderbookOpen: open,
    analyticsOnly: false,
    seedKey: null,
    book: {
      b,
      q0Yes: s.qYes,
      q0No: s.qNo,
      yesMicro: 0,
      noMicro: 0,
      version: 0,
      anchoredAt: now,
      anchorPrice: price,
    },
    createdAt: now,
  };
}

/**
 * Inserts the market unless it exists; true when this call created it. Concurrent importers race
 * on `_id` (derived from the venue id), so exactly one of them creates it.
 */
export async function insertImportedMarket(
  models: Pick<Models, 'Market'>,
  venue: ExternalVenueId,
  m: VenueMarket,
  now: Date,
  importedBy: string | null = null,
): Promise<boolean> {
  const record = newImportedMarket(venue, m, now, importedBy);
  try {
    const r = await models.Market.updateOne({ _id: record._id }, { $setOnInsert: record }, { upsert: true });
    return r.upsertedCount > 0;
  } catch (err) {
    if (isDuplicateKey(err)) return false;
    throw err;
  }
}

/**
 * Adds the venue's current tags to a market imported earlier that lacks some of them (e.g. the tag
 * slugs, stored only since issue 38: a World Cup market imported before carried "world cup" but not
 * "world-cup", which the worldcup copytrader filters by). Tags are only added, never removed, so an
 * answer that matched a market yesterday still matches it; the guard in the filter makes the
 * common case (nothing missing) a read.
 */
export async function addMissingImportedTags(
  models: Pick<Models, 'Market'>,
  venue: ExternalVenueId,
  m: VenueMarket,
): Promise<void> {
  const tags = importedTags(m);
  await models.Market.updateOne(
    { _id: importedMarketId(venue, m.externalId), tags: { $not: { $all: tags } } },
    { $addToSet: { tags: { $each: tags } } },
  );
}
