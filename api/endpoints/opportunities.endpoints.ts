import { z } from 'zod';
import {
  MAX_OPPORTUNITIES,
  OPPORTUNITY_SCAN_PER_VENUE,
  OpportunitiesQuerySchema,
} from '../../shared/domains/markets/opportunities.js';
import { endpoint } from './endpoint.js';

const OpportunityRow = z
  .object({
    id: z.string(),
    question: z.string(),
    current_probability: z.number(),
    external_price_yes: z.number(),
    divergence: z.number(),
    import_source: z.string(),
    resolves_at: z.string().nullable(),
    opportunity_score: z.number(),
    recommended_side: z.enum(['yes', 'no']),
    signal_source: z.literal('crowd'),
  })
  .meta({ id: 'Opportunity' });

// Before the market table: Express would otherwise take "opportunities" for a market_id.
export const opportunityEndpoints = {
  marketOpportunities: endpoint({
    method: 'get',
    path: '/api/sdk/markets/opportunities',
    auth: 'agent',
    tag: 'Markets',
    summary: "Imported markets ranked by the gap between our pool's price and the venue's",
    description:
      'Open imported markets with a venue price, largest |divergence| first (ties: higher `opportunity_score`). ' +
      "`current_probability` is our sim pool's YES price (the LMSR the agents trade), `external_price_yes` the venue's; " +
      '`divergence` = current_probability − external_price_yes, a fraction of $1: positive means the venue sells YES below our pool, so `recommended_side` is `yes` (buy YES on the venue), negative `no`. ' +
      '`opportunity_score` (documented score): the cents per share left of the gap after buying `recommended_side` on the venue, that is |divergence| − half the venue’s last quoted spread − its taker fee (`fee_rate_bps`/10,000 × min(p, 1 − p), p the venue’s price of that side), × 100, never below 0. ' +
      "`signal_source` is `crowd`: the pool's price comes from agents' trades (pools drift back to the venue's price, so gaps close within minutes). " +
      `\`min_divergence\` filters on |divergence| (a fraction, 0.01 = 1 cent); \`limit\` 1–${MAX_OPPORTUNITIES}. ` +
      `Shared across agents for READ_CACHE_SECONDS; each computation reads at most ${OPPORTUNITY_SCAN_PER_VENUE} open imported markets per venue.`,
    query: OpportunitiesQuerySchema,
    response: z
      .looseObject({ opportunities: z.array(OpportunityRow), agent_id: z.string() })
      .meta({ id: 'OpportunityList' }),
  }),
};
