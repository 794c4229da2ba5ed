import { notFound } from '../../infra/errors.js';
import type { Models } from '../models.js';
import type { MarketRecord } from './market.model.js';
import { MARKET_INCLUDES, MARKET_WINDOW, type MarketListQuery } from './market-query.schemas.js';
import { CONDITION_ID, isServiceMarketId, KALSHI_TICKER } from '../venues/external-ids.js';
import { isPoolVenue, normalizeVenue, POOL_VENUE, venueIds, type VenueId } from '../venues/venue-id.js';
import { closestMatch } from '../../util/closest-match.js';
import { queryWords, wordsFilter } from '../../util/search-words.js';
import { marketView, type MarketView } from './market-view.js';

function unknownValue(param: string, value: string, valid: readonly string[]): string {
  const suggestion = closestMatch(value, valid);
  return `Unknown ${param} '${value}' ignored${suggestion ? ` (did you mean '${suggestion}'?)` : ''}. Valid values: ${valid.join(', ')}.`;
}

const SORTS: Record<string, Record<string, 1 | -1>> = {
  volume: { volume24hMicro: -1, createdAt: -1, _id: 1 },
  recent: { createdAt: -1, _id: 1 },
  created: { createdAt: -1, _id: 1 },
};

function emptyReason(q: MarketListQuery, status: string, matchedBefore: number, matched: number) {
  if (matchedBefore > 0 && matched === 0) {
    return {
      empty_reason: 'not_tradeable',
      hint: `${matchedBefore} market(s) matched but their order book is unavailable; pass tradeable_only=false to list them.`,
    };
  }
  if (matched > 0)
    return {
      empty_reason: 'offset_beyond_results',
      hint: `Only ${Math.min(matched, MARKET_WINDOW)} market(s) match; use an offset below that.`,
    };
  if (q.ids)
    return {
      empty_reason: 'ids_not_found',
      hint: 'ids are service market UUIDs; for an external condition id or ticker use GET /api/sdk/markets/check.',
    };
  if (q.q)
    return {
      empty_reason: 'no_match_for_query',
      hint: `Nothing matches q='${q.q}' in questions or tags; try fewer or other words.`,
    };
  if (q.max_hours_to_resolution)
    return {
      empty_reason: 'none_resolving_soon',
      hint: 'No market resolves within max_hours_to_resolution; raise it.',
    };
  if (q.tags)
    return {
      empty_reason: 'no_market_with_all_tags',
      hint: 'A market must carry ALL the tags given; try fewer tags.',
    };
  return {
    empty_reason: 'no_matching_markets',
    hint:
      status === 'active' ? 'No active market matches; try status=all.' : 'No market matches these filters.',
  };
}

/** `GET /api/sdk/markets` with every rule of spec §4.1. */
export async function listMarkets(models: Models, q: MarketListQuery, baseUrl: string, now: Date) {
  const warnings: string[] = [];
  const rawVenue = q.venue ?? q.import_source;
  let venue: VenueId | undefined;
  if (rawVenue) {
    const normalized = normalizeVenue(rawVenue);
    venue = normalized?.venue;
    // This endpoint words the alias warning its own way (single quotes); clients match on it.
    if (normalized?.warning)
      warnings.push(`venue '${rawVenue.trim().toLowerCase()}' is deprecated; use '${POOL_VENUE}'.`);
    if (!normalized) warnings.push(unknownValue('venue', rawVenue, venueIds()));
  }
  let sort = 'volume';
  if (q.sort) {
    // Own keys only: `constructor` or `__proto__` would otherwise find Object.prototype's members.
    if (Object.hasOwn(SORTS, q.sort)) sort = q.sort;
    else warnings.push(unknownValue('sort', q.sort, Object.keys(SORTS)));
  }
  const include = new Set(
    (q.include ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
  for (const field of include)
    if (!(MARKET_INCLUDES as readonly string[]).includes(field))
      warnings.push(unknownValue('include', field, MARKET_INCLUDES));

  const status = q.status ?? (q.ids ? 'all' : 'active');
  const and: Record<string, unknown>[] = [];
  if (status !== 'all') and.push({ status });
  if (isPoolVenue(venue)) and.push({ simTradeable: true });
  else if (venue) and.push({ importSource: venue });
  if (!q.include_analytics_only) and.push({ analyticsOnly: false });
  // Each word in the question or a tag; the other clauses (status, venue) narrow by index first.
  if (q.q) and.push(wordsFilter(queryWords(q.q), ['question', 'tags']));
  if (q.ids) and.push({ _id: { $in: q.ids } });
  if (q.tags) and.push({ tags: { $all: q.tags } });
  if (q.max_hours_to_resolution)
    and.push({
      resolvesAt: { $gte: now, $lte: new Date(now.getTime() + q.max_hours_to_resolution * 3600_000) },
    });
  const base = and.length ? { $and: and } : {};
  // Active rows whose order book is unavailable are hidden by default; other statuses are not "tradeable" anyway.
  const filter = q.tradeable_only
    ? { $and: [...and, { $or: [{ status: { $ne: 'active' } }, { isOrderbookOpen: true }] }] }
    : base;

  const matched = await models.Market.countDocuments(filter);
  const total = Math.min(matched, MARKET_WINDOW);
  const limit = Math.max(0, Math.min(q.limit, total - q.offset));
  const rows: MarketRecord[] =
    limit > 0 ? await models.Market.find(filter).sort(SORTS[sort]!).skip(q.offset).limit(limit).lean() : [];
  // Only an empty answer explains itself, so only then count what the tradeable filter removed.
  const matchedBefore =
    q.tradeable_only && rows.length === 0 ? await models.Market.countDocuments(base) : matched;
  const markets = rows.map((m) => {
    const view: MarketView & Record<string, unknown> = marketView(m, baseUrl, now);
    if (include.has('description')) view.description = m.description;
    if (include.has('book')) view.book = { b: m.book.b, version: m.book.version };
    return view;
  });
  return {
    markets,
    total,
    truncated: matched > MARKET_WINDOW,
    capped_at_limit: matched > MARKET_WINDOW,
    ...(warnings.length ? { warning: warnings.join(' ') } : {}),
    ...(markets.length === 0
      ? { ...emptyReason(q, status, matchedBefore, matched), matched_before_tradeable_filter: matchedBefore }
      : {}),
  };
}

export async function getMarket(models: Models, id: string, baseUrl: string, now: Date) {
  const market = isServiceMarketId(id) ? await models.Market.findById(id).lean() : null;
  if (!market) {
    throw notFound(
      'Market',
      'Use the service market_id (a UUID) from GET /api/sdk/markets.',
      CONDITION_ID.test(id) || KALSHI_TICKER.test(id)
        ? 'That looks like an external condition id or ticker; markets are addressed by their service UUID. Import the market first, or look it up with GET /api/sdk/markets/check.'
        : undefined,
    );
  }
  return marketView(market, baseUrl, now);
}

const PUBLIC_ORDER: Record<
  string,
  { filter: (now: Date) => Record<string, unknown>; sort: Record<string, 1 | -1> }
> = {
  active: { filter: () => ({ status: 'active' }), sort: { volume24hMicro: -1, createdAt: -1, _id: 1 } },
  trending: { filter: () => ({ status: 'active' }), sort: { lastTradeAt: -1, volume24hMicro: -1, _id: 1 } },
  new: { filter: () => ({ status: 'active' }), sort: { createdAt: -1, _id: 1 } },
  ending: {
    filter: (now) => ({ status: 'active', resolvesAt: { $gte: now } }),
    sort: { resolvesAt: 1, _id: 1 },
  },
  resolved: { filter: () => ({ status: 'resolved' }), sort: { resolvedAt: -1, _id: 1 } },
};

/** `GET /api/markets`: the public catalogue (no auth), as the MCP client browses it. */
export async function listPublicMarkets(
  models: Models,
  q: { q?: string; limit: number; status: string; tags?: string[]; min_volume?: number; source?: VenueId },
  baseUrl: string,
  now: Date,
) {
  const order = PUBLIC_ORDER[q.status]!;
  const and: Record<string, unknown>[] = [order.filter(now), { analyticsOnly: false }];
  if (q.q) and.push(wordsFilter(queryWords(q.q), ['question', 'tags']));
  if (q.tags) and.push({ tags: { $all: q.tags } });
  if (q.min_volume) and.push({ volume24hMicro: { $gte: Math.round(q.min_volume * 1e6) } });
  if (q.source) and.push({ importSource: q.source });
  const rows = await models.Market.find({ $and: and }).sort(order.sort).limit(q.limit).lean();
  return { markets: rows.map((m) => marketView(m, baseUrl, now)), count: rows.length, status: q.status };
}
