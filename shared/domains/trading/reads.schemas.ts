import { z } from 'zod';
import { normalizeVenue, type VenueId } from '../venues/venue-id.js';
import { venueEnum } from '../venues/venue-schemas.js';

const venueParam = z
  .preprocess((v) => (typeof v === 'string' ? v.trim().toLowerCase() : v), venueEnum('names', ['all']))
  .optional()
  .meta({ description: '`all` (default), `sim`, `polymarket` or `kalshi`; `simmer`/`sandbox` mean `sim`.' });

const boolParam = z.preprocess(
  (v) => (typeof v === 'string' ? ['true', '1', 'yes'].includes(v.toLowerCase()) : v),
  z.boolean(),
);

export const PositionsQuerySchema = z.object({
  venue: venueParam,
  status: z.enum(['active', 'resolved', 'closed', 'settled', 'all']).default('active'),
  source: z
    .string()
    .max(200)
    .optional()
    .meta({ description: 'Partial match on the source tags of the position.' }),
});

export const TradesQuerySchema = z.object({
  venue: venueParam,
  market_id: z.string().max(200).optional(),
  since: z.iso.datetime({ offset: true }).optional(),
  until: z.iso.datetime({ offset: true }).optional(),
  include_failed: boolParam.default(false),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).max(100_000).default(0),
});

export const PortfolioQuerySchema = z.object({ venue: venueParam });

/** `sim` for the legacy aliases, undefined for all venues. */
export function venueFilter(v: string | undefined): VenueId | undefined {
  if (!v || v === 'all') return undefined;
  return normalizeVenue(v)?.venue;
}
