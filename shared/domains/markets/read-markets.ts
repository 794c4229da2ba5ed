import { notFound } from '../../infra/errors.js';
import type { Models } from '../models.js';
import type { MarketRecord } from './market.model.js';
import { marketView } from './market-view.js';

/** At most this many matching markets form the list window (spec §4.1 rule 1). */
export const MARKET_WINDOW = 1000;

export interface MarketListParams {
  status: 'active' | 'closed' | 'resolved' | 'all';
  source?: 'sim' | 'polymarket' | 'kalshi';
  sort: 'volume' | 'recent' | 'created';
  limit: number;
  offset: number;
}

export async function listMarkets(models: Models, p: MarketListParams, baseUrl: string, now: Date) {
  const filter: Record<string, unknown> = { analyticsOnly: false };
  if (p.status !== 'all') filter.status = p.status;
  if (p.source) filter.importSource = p.source;
  const sort: Record<string, 1 | -1> =
    p.sort === 'volume' ? { volume24hMicro: -1, createdAt: -1, _id: 1 } : { createdAt: -1, _id: 1 };
  const matched = await models.Market.countDocuments(filter);
  const total = Math.min(matched, MARKET_WINDOW);
  const limit = Math.max(0, Math.min(p.limit, total - p.offset));
  const rows: MarketRecord[] =
    limit > 0 ? await models.Market.find(filter).sort(sort).skip(p.offset).limit(limit).lean() : [];
  return {
    markets: rows.map((m) => marketView(m, baseUrl, now)),
    total,
    truncated: matched > MARKET_WINDOW,
    capped_at_limit: matched > MARKET_WINDOW,
  };
}

const CONDITION_ID = /^0x[0-9a-f]{64}$/i;

export async function getMarket(models: Models, id: string, baseUrl: string, now: Date) {
  const market = /^[0-9a-f-]{36}$/i.test(id) ? await models.Market.findById(id).lean() : null;
  if (!market) {
    throw notFound(
      'Market',
      'Use the service market_id (a UUID) from GET /api/sdk/markets.',
      CONDITION_ID.test(id) || /^[A-Z0-9]+-/.test(id)
        ? 'That looks like an external condition id or ticker; markets are addressed by their service UUID. Import the market first, or look it up with GET /api/sdk/markets/check.'
        : undefined,
    );
  }
  return marketView(market, baseUrl, now);
}
