import { invalidField } from '../../infra/errors.js';
import type { Models } from '../models.js';
import type { VenueRegistry } from '../venues/venue-registry.js';
import { VENUE_OF_ID_KIND } from '../venues/external-ids.js';
import { normalizeExternalId } from '../venues/venue-conventions.js';
import type { MarketRecord } from './market.model.js';
import { byExternalIds } from './venue-ref.js';

/** A venue URL compared without scheme case, `www.`, query, fragment or trailing slash. */
export function normalizeMarketUrl(raw: string): string | null {
  try {
    const u = new URL(raw.trim());
    const host = u.hostname.toLowerCase().replace(/^www\./, '');
    return `https://${host}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    return null;
  }
}

/**
 * The stored markets a venue URL may be, as the venue that recognises the URL says (each venue
 * knows its own page forms); any other URL matches on the stored URL alone.
 */
function urlFilter(venues: VenueRegistry, raw: string, url: string): Record<string, unknown> {
  for (const adapter of venues.all()) {
    const match = adapter.matchMarketUrl?.(raw, url);
    if (!match) continue;
    const anyOf: Record<string, unknown>[] = [{ url: { $in: match.urls } }];
    if (match.externalIds.length) anyOf.push(byExternalIds(match.venue, match.externalIds));
    // A market's ticker or slug, or an event's: every imported market of that event.
    if (match.eventRefs.length) anyOf.push({ importSource: match.venue, eventRef: { $in: match.eventRefs } });
    return anyOf.length === 1 ? anyOf[0]! : { $or: anyOf };
  }
  return { url };
}

export interface CheckQuery {
  url?: string;
  condition_id?: string;
  ticker?: string;
}

const row = (m: MarketRecord) => ({
  market_id: m._id,
  question: m.question,
  status: m.status,
  import_source: m.importSource,
});

/**
 * `GET /api/sdk/markets/check`: whether a venue market is already on this service, by URL, Polymarket
 * condition id or Kalshi ticker (exactly one). Free: it never touches the import quota.
 */
export async function checkMarket(models: Models, venues: VenueRegistry, q: CheckQuery) {
  const given = (['url', 'condition_id', 'ticker'] as const).filter((k) => q[k]);
  if (given.length !== 1)
    throw invalidField(
      given[1] ?? 'url',
      'give exactly one of url, condition_id, ticker',
      q,
      'Send one of: ?url=<venue market URL>, ?condition_id=0x…, ?ticker=KX…',
      'query',
    );
  let filter: Record<string, unknown>;
  if (q.url) {
    const url = normalizeMarketUrl(q.url);
    if (!url)
      throw invalidField(
        'url',
        'not a URL',
        q.url,
        'Send the full venue URL, starting with https://',
        'query',
      );
    filter = urlFilter(venues, q.url, url);
  } else if (q.condition_id) filter = byExternalIds(VENUE_OF_ID_KIND.condition_id, [q.condition_id]);
  else {
    // A ticker names a market, or an event (its markets carry the event's ticker as `eventRef`).
    const venue = VENUE_OF_ID_KIND.ticker;
    const ticker = normalizeExternalId(venue, q.ticker!.trim());
    filter = { $or: [byExternalIds(venue, [ticker]), { importSource: venue, eventRef: ticker }] };
  }

  const found = await models.Market.find(filter).sort({ createdAt: 1 }).limit(20).lean();
  if (!found.length) return { exists: false as const };
  return { exists: true as const, ...row(found[0]!), markets: found.map(row) };
}
