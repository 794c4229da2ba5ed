import { z } from 'zod';
import type { Models } from '../models.js';
import { externalVenueIds } from '../venues/venue-id.js';
import type { MarketRecord } from './market.model.js';

/** At most this many open imported markets of one venue are read per computation (in `_id` order). */
export const OPPORTUNITY_SCAN_PER_VENUE = 5000;
export const MAX_OPPORTUNITIES = 100;

export const OpportunitiesQuerySchema = z.object({
  limit: z.coerce
    .number()
    .int('limit must be a whole number')
    .min(1, 'limit must be at least 1')
    .max(MAX_OPPORTUNITIES, `limit is at most ${MAX_OPPORTUNITIES}`)
    .default(20)
    .meta({ description: `Markets returned, 1–${MAX_OPPORTUNITIES} (default 20).` }),
  min_divergence: z.coerce
    .number()
    .min(0, 'min_divergence cannot be negative: it bounds the size of the gap, |divergence|')
    .max(1, 'min_divergence is a fraction of $1 (0.05 for a 5-cent gap), at most 1')
    .default(0)
    .meta({
      description: 'Smallest |divergence| listed, as a fraction of $1 (0.01 = one cent; default 0).',
    }),
});
export type OpportunitiesQuery = z.output<typeof OpportunitiesQuerySchema>;

type OpportunitySource = Pick<
  MarketRecord,
  | '_id'
  | 'question'
  | 'currentPrice'
  | 'externalPriceYes'
  | 'externalSpread'
  | 'feeRateBps'
  | 'importSource'
  | 'resolvesAt'
>;

const FIELDS = {
  question: 1,
  currentPrice: 1,
  externalPriceYes: 1,
  externalSpread: 1,
  feeRateBps: 1,
  importSource: 1,
  resolvesAt: 1,
} as const;

const round = (x: number, places: number) => Math.round(x * 10 ** places) / 10 ** places;

/**
 * One market as an opportunity. `divergence` = our pool's YES price − the venue's (positive: the
 * venue sells YES cheaper than our pool values it, so `recommended_side` is `yes`; negative: `no`).
 * `opportunity_score` is what is left of the gap, in cents per share, after a trade on the venue
 * crosses half its spread and pays its taker fee (`fee_rate_bps` × min(p, 1 − p) at the venue's
 * price p of the side bought), never below 0: a gap the venue's costs eat scores 0.
 */
export function opportunityOf(m: OpportunitySource) {
  const venue = m.externalPriceYes as number;
  const divergence = m.currentPrice - venue;
  const side: 'yes' | 'no' = divergence >= 0 ? 'yes' : 'no';
  const sidePrice = side === 'yes' ? venue : 1 - venue;
  const halfSpread = (m.externalSpread ?? 0) / 2;
  const fee = (m.feeRateBps / 10_000) * Math.min(sidePrice, 1 - sidePrice);
  return {
    id: m._id,
    question: m.question,
    current_probability: round(m.currentPrice, 6),
    external_price_yes: venue,
    divergence: round(divergence, 6),
    import_source: m.importSource,
    resolves_at: m.resolvesAt ? m.resolvesAt.toISOString() : null,
    opportunity_score: round(Math.max(0, Math.abs(divergence) - halfSpread - fee) * 100, 4),
    recommended_side: side,
    // Our pool's price is set by the agents trading against it (no model forecast here).
    signal_source: 'crowd' as const,
  };
}
export type Opportunity = ReturnType<typeof opportunityOf>;

/**
 * Every open imported market with a venue price, as opportunities, largest gap first. Read per
 * venue with an equality on `{importSource, status}` (the markets' `{importSource, status, _id}`
 * index; the development database's own `{importSource, status}`), the few fields needed only, at
 * most OPPORTUNITY_SCAN_PER_VENUE markets per venue.
 */
export async function rankedOpportunities(models: Pick<Models, 'Market'>): Promise<Opportunity[]> {
  const rows: Opportunity[] = [];
  for (const venue of externalVenueIds()) {
    const markets = (await models.Market.find({ importSource: venue, status: 'active' }, FIELDS)
      .sort({ _id: 1 })
      .limit(OPPORTUNITY_SCAN_PER_VENUE)
      .lean()) as OpportunitySource[];
    for (const m of markets) if (typeof m.externalPriceYes === 'number') rows.push(opportunityOf(m));
  }
  return rows.sort(
    (a, b) =>
      Math.abs(b.divergence) - Math.abs(a.divergence) ||
      b.opportunity_score - a.opportunity_score ||
      a.id.localeCompare(b.id),
  );
}

/** The first `limit` of `ranked` whose gap is at least `min_divergence`. */
export const selectOpportunities = (ranked: readonly Opportunity[], q: OpportunitiesQuery) =>
  ranked.filter((o) => Math.abs(o.divergence) >= q.min_divergence - 1e-9).slice(0, q.limit);
