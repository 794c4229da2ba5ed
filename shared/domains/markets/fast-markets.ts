import type { Models } from '../models.js';
import type { MarketRecord } from './market.model.js';
import { marketView } from './market-view.js';
import { escapeRegex } from '../../util/search-words.js';
import { isPoolVenue } from '../venues/venue-id.js';

/** Fast-market windows and their length. A fast market carries the tags `fast` and `fast-<window>`. */
export const FAST_WINDOWS = {
  '5m': 5 * 60_000,
  '15m': 15 * 60_000,
  '1h': 3600_000,
  '4h': 4 * 3600_000,
  daily: 24 * 3600_000,
} as const;
export type FastWindow = keyof typeof FAST_WINDOWS;

const ASSET_NAMES: Record<string, string> = {
  BTC: 'bitcoin',
  ETH: 'ethereum',
  SOL: 'solana',
  XRP: 'xrp',
  DOGE: 'dogecoin',
};

function windowOf(m: MarketRecord): FastWindow | null {
  for (const w of Object.keys(FAST_WINDOWS) as FastWindow[]) if (m.tags.includes(`fast-${w}`)) return w;
  return null;
}

/**
 * `GET /api/sdk/fast-markets` (client-contract §5.5): short-window markets (tagged `fast`) that have
 * not resolved yet. A market is live inside the final window before it resolves (`opens_at` is when
 * that window starts); live markets first, then the soonest to resolve.
 */
export async function listFastMarkets(
  models: Models,
  q: {
    limit: number;
    asset?: string;
    window?: FastWindow;
    market_status?: 'live' | 'upcoming';
    venue?: string;
  },
  baseUrl: string,
  now: Date,
) {
  const and: Record<string, unknown>[] = [
    { status: 'active' },
    { tags: q.window ? { $all: ['fast', `fast-${q.window}`] } : 'fast' },
    { resolvesAt: { $gt: now } },
  ];
  if (q.asset) {
    const symbol = q.asset.trim().toUpperCase();
    const words = [symbol, ASSET_NAMES[symbol]].filter(Boolean).map((w) => escapeRegex(w!));
    and.push({
      $or: [{ question: { $regex: words.join('|'), $options: 'i' } }, { tags: symbol.toLowerCase() }],
    });
  }
  if (q.venue && !isPoolVenue(q.venue)) and.push({ importSource: q.venue });
  const rows = await models.Market.find({ $and: and }).sort({ resolvesAt: 1, _id: 1 }).limit(1000).lean();
  const markets = rows
    .map((m) => {
      const w = windowOf(m) ?? '15m';
      const opensAt = new Date(m.resolvesAt!.getTime() - FAST_WINDOWS[w]);
      const live = now >= opensAt;
      return {
        ...marketView(m, baseUrl, now),
        window: w,
        opens_at: opensAt.toISOString(),
        is_live_now: live,
        market_status: live ? 'live' : 'upcoming',
        spread_cents:
          m.externalSpread === null || m.externalSpread === undefined
            ? 0
            : Math.round(m.externalSpread * 10_000) / 100,
        liquidity_tier: m.book.b >= 5000 ? 'tight' : 'moderate',
      };
    })
    .filter((m) => !q.market_status || m.market_status === q.market_status)
    .sort(
      (a, b) =>
        Number(b.is_live_now) - Number(a.is_live_now) ||
        Date.parse(a.resolves_at!) - Date.parse(b.resolves_at!),
    )
    .slice(0, q.limit);
  return { markets, total: markets.length };
}
