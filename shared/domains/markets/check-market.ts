import { invalidField } from '../../infra/errors.js';
import type { Models } from '../models.js';
import { parseKalshiInput } from '../venues/kalshi/kalshi-urls.js';
import { parsePolymarketUrl, polymarketMarketUrl } from '../venues/polymarket/polymarket-urls.js';
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
 * The tickers a Kalshi URL may name: the one kalshi.md §1.6 finds (fragment, else the last segment of
 * the series) and the last path segment, which ends most market URLs. Empty for other hosts.
 */
function kalshiTickersIn(raw: string, normalized: string): string[] {
  if (!normalized.startsWith('https://kalshi.com/')) return [];
  const parsed = parseKalshiInput(raw);
  const tickers = [normalized.split('/').at(-1)!.toUpperCase()];
  if (parsed.kind === 'ticker') tickers.push(parsed.ticker);
  return [...new Set(tickers)];
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
export async function checkMarket(models: Models, q: CheckQuery) {
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
    const tickers = kalshiTickersIn(q.url, url);
    const polymarket = parsePolymarketUrl(q.url);
    filter = tickers.length
      ? // A market ticker, or an event ticker: every imported market of that event.
        {
          $or: [
            { url },
            byExternalIds('kalshi', tickers),
            { importSource: 'kalshi', eventRef: { $in: tickers } },
          ],
        }
      : polymarket.kind === 'event'
        ? { $or: [{ url }, { importSource: 'polymarket', eventRef: polymarket.eventSlug }] }
        : polymarket.kind === 'market'
          ? {
              url: {
                $in: [
                  url,
                  polymarketMarketUrl(polymarket.eventSlug, polymarket.marketSlug),
                  polymarketMarketUrl(null, polymarket.marketSlug),
                ],
              },
            }
          : { url };
  } else if (q.condition_id) filter = byExternalIds('polymarket', [q.condition_id]);
  else {
    const ticker = q.ticker!.trim().toUpperCase();
    filter = { $or: [byExternalIds('kalshi', [ticker]), { importSource: 'kalshi', eventRef: ticker }] };
  }

  const found = await models.Market.find(filter).sort({ createdAt: 1 }).limit(20).lean();
  if (!found.length) return { exists: false as const };
  return { exists: true as const, ...row(found[0]!), markets: found.map(row) };
}
