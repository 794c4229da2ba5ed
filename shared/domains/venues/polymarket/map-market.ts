import type { VenueEvent, VenueMarket, VenueMarketStatus, VenueResolution } from '../venue-adapter.js';
import type { GammaEvent, GammaEventRef, GammaMarket, GammaTag } from './gamma.schemas.js';
import { polymarketMarketUrl } from './polymarket-urls.js';

/**
 * Gamma objects → the venue-neutral market types. Pure functions: everything the rest of the
 * service knows about a Polymarket market passes through here, so the venue's quirks (JSON-string
 * arrays, index 0 = YES, §10's resolution rule) are settled in one place.
 */

/** Values Gamma leaves out on young markets; the CLOB's own defaults (reference §2.2). */
const DEFAULT_TICK = 0.01;
const DEFAULT_MIN_ORDER_SIZE = 5;

export const UNSUPPORTED_PROTOCOL_V2 = 'Protocol-V2 markets are not supported yet';
export const UNSUPPORTED_NOT_DEPLOYED = 'The market is not on the order book yet (it has no condition id)';
export const UNSUPPORTED_NO_TOKENS = 'The market has no order-book tokens yet (no clobTokenIds)';
export const unsupportedNonBinary = (n: number) =>
  `Only binary (two-outcome) markets are supported; this market has ${n} outcomes`;

/**
 * Gamma market → VenueMarket. `parent` is the event the market was fetched through (event
 * answers do not repeat it inside each market); otherwise the market's own `events[0]` is used.
 */
export function mapGammaMarket(m: GammaMarket, parent?: GammaEventRef | null): VenueMarket {
  const event = parent ?? m.events?.[0] ?? null;
  const eventSlug = event?.slug || null;
  const gammaTags = event?.tags?.length ? event.tags : m.tags;
  const tags = tagNames(gammaTags, 'label');
  const tokens = m.clobTokenIds ?? [];
  const status = gammaMarketStatus(m);
  return {
    venue: 'polymarket',
    externalId: (m.conditionId ?? '').toLowerCase(),
    yesTokenId: tokens[0] ?? null,
    noTokenId: tokens[1] ?? null,
    question: m.question,
    description: m.description || null,
    url: m.slug ? polymarketMarketUrl(eventSlug, m.slug) : null,
    slug: m.slug || null,
    eventId: event?.id ?? null,
    eventSlug,
    eventName: event?.title || null,
    outcomeName: m.groupItemTitle || null,
    outcomes: [m.outcomes[0] ?? 'Yes', m.outcomes[1] ?? 'No'],
    yesPrice: m.outcomePrices?.[0] ?? null,
    bestBid: m.bestBid,
    bestAsk: m.bestAsk,
    tickSize: m.orderPriceMinTickSize ?? DEFAULT_TICK,
    minOrderSize: m.orderMinSize ?? DEFAULT_MIN_ORDER_SIZE,
    negRisk: m.negRisk ?? event?.negRisk ?? false,
    feeRateBps: m.takerBaseFee ?? 0,
    volume24h: m.volume24hr ?? 0,
    volumeTotal: m.volumeNum ?? m.volume ?? 0,
    liquidity: m.liquidityNum ?? m.liquidity ?? 0,
    endDate: m.endDate,
    tags,
    tagSlugs: tagNames(gammaTags, 'slug'),
    category: tags[0] ?? (m.category || null),
    closed: status.closed,
    acceptingOrders: status.acceptingOrders,
    resolution: status.resolution,
    unsupported: unsupportedReason(m),
  };
}

/** Gamma event → VenueEvent, every market mapped with the event as its parent. */
export function mapGammaEvent(e: GammaEvent): VenueEvent {
  const parent: GammaEventRef = { id: e.id, slug: e.slug, title: e.title, negRisk: e.negRisk, tags: e.tags };
  return {
    venue: 'polymarket',
    id: e.id,
    slug: e.slug,
    title: e.title,
    negRisk: e.negRisk ?? false,
    markets: (e.markets ?? []).map((m) => mapGammaMarket(m, parent)),
  };
}

/** Open / closed / resolved, as the sync job needs it. */
export function gammaMarketStatus(m: GammaMarket): VenueMarketStatus {
  return {
    closed: m.closed,
    // A closed market takes no orders whatever the (sometimes stale) flag says.
    acceptingOrders: !m.closed && (m.acceptingOrders ?? false),
    resolution: gammaResolution(m),
  };
}

/**
 * Reference §10: final only when the market is closed **and** UMA says `resolved`; then the
 * winner is the one outcome priced exactly 1 (others 0), or `[0.5, 0.5]` is a void (50-50)
 * resolution paying 0.5 per share. Anything else — `proposed`/`disputed`, prices such as
 * `[0.9995, 0.0005]`, a closed market without a UMA status — is not final and yields null.
 */
export function gammaResolution(m: GammaMarket): VenueResolution | null {
  if (!m.closed || m.umaResolutionStatus !== 'resolved') return null;
  const prices = m.outcomePrices;
  if (!prices || prices.length !== 2 || m.outcomes.length !== 2) return null;
  const resolvedAt = m.closedTime ?? m.umaEndDate ?? null;
  const [yes, no] = prices as [number, number];
  if (yes === 1 && no === 0) return { outcome: true, payoutYes: 1, resolvedAt };
  if (yes === 0 && no === 1) return { outcome: false, payoutYes: 0, resolvedAt };
  if (yes === 0.5 && no === 0.5) return { outcome: null, payoutYes: 0.5, resolvedAt };
  return null;
}

/** Why the importer must refuse the market, or null. Checked in order of what to fix first. */
export function unsupportedReason(m: GammaMarket): string | null {
  if (m.version?.toLowerCase() === 'v2') return UNSUPPORTED_PROTOCOL_V2;
  if (!m.conditionId) return UNSUPPORTED_NOT_DEPLOYED;
  if (m.outcomes.length !== 2) return unsupportedNonBinary(m.outcomes.length);
  if ((m.clobTokenIds ?? []).length !== 2) return UNSUPPORTED_NO_TOKENS;
  return null;
}

/** One name of each Gamma tag (its `label` or its `slug`), trimmed, without blanks or repeats. */
function tagNames(tags: GammaTag[] | null | undefined, name: 'label' | 'slug'): string[] {
  const names: string[] = [];
  for (const t of tags ?? []) {
    const value = t[name]?.trim();
    if (value && !names.includes(value)) names.push(value);
  }
  return names;
}
