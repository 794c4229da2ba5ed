import { fromMicro } from '../money.js';
import type { MarketRecord } from './market.model.js';
import { marketRefFields } from '../venues/venue-ref-fields.js';

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

/**
 * A market as the API shows it: spec §2.2 fields plus the row keys real clients read
 * (client-contract §5.1), null where a field does not apply (e.g. Polymarket ids on a sim market).
 */
export function marketView(m: MarketRecord, baseUrl: string, now: Date) {
  const p = Math.round(m.currentPrice * 1e6) / 1e6;
  const external = m.externalPriceYes;
  return {
    id: m._id,
    market_id: m._id,
    question: m.question,
    status: m.status,
    current_probability: p,
    current_price: p,
    url: `${baseUrl}/api/sdk/markets/${m._id}`,
    external_price_yes: external,
    // The venue's top of book at the last price sync (imported markets; null on sim).
    best_bid: m.externalBestBid ?? null,
    best_ask: m.externalBestAsk ?? null,
    spread: m.externalSpread ?? null,
    quote_ts: m.externalQuotedAt ? m.externalQuotedAt.getTime() / 1000 : null,
    quote_age_seconds: m.externalQuotedAt
      ? Math.max(0, (now.getTime() - m.externalQuotedAt.getTime()) / 1000)
      : null,
    divergence: external === null ? 0 : Math.round((p - external) * 1e6) / 1e6,
    opportunity_score: external === null ? 0 : Math.round(Math.abs(p - external) * 100 * 1e4) / 1e4,
    volume_24h: fromMicro(m.volume24hMicro),
    resolves_at: iso(m.resolvesAt),
    resolved_at: iso(m.resolvedAt),
    seconds_to_resolution: m.resolvesAt ? (m.resolvesAt.getTime() - now.getTime()) / 1000 : null,
    outcome: m.outcome,
    event_id: m.eventId,
    event_name: m.eventName,
    outcome_name: m.outcomeName,
    event_ref: m.eventRef,
    ...marketRefFields(m.venueRef),
    fee_rate_bps: m.feeRateBps,
    tick_size: m.tickSize,
    tags: m.tags,
    category: m.category,
    is_sdk_only: m.isSdkOnly,
    is_paid: m.isPaid,
    import_source: m.importSource,
    venue: m.importSource,
    resolution_criteria: m.resolutionCriteria,
    sim_tradeable: m.simTradeable && !m.analyticsOnly,
    is_orderbook_open: m.isOrderbookOpen && m.status === 'active',
    liquidity: m.book.b,
    created_at: iso(m.createdAt),
  };
}
export type MarketView = ReturnType<typeof marketView>;
