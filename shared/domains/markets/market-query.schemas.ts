import { z } from 'zod';
import { venueEnum } from '../venues/venue-schemas.js';
import { fewWords, MAX_QUERY_WORDS, WORDS_MESSAGE } from '../../util/search-words.js';

const boolParam = z.preprocess(
  (v) => (typeof v === 'string' ? ['true', '1', 'yes'].includes(v.toLowerCase()) : v),
  z.boolean(),
);
const csv = (max: number, what: string) =>
  z
    .string()
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .refine((xs) => xs.length <= max, { message: `at most ${max} ${what}` });

export const MARKET_SORTS = ['volume', 'recent', 'created', 'opportunity'] as const;
export const MARKET_INCLUDES = ['resolution_criteria', 'description', 'book'] as const;

/** At most this many matching markets form the list's window; limit and offset apply inside it (spec §4.1). */
export const MARKET_WINDOW = 1000;

/**
 * `GET /api/sdk/markets` (spec §4.1). `venue`, `import_source`, `sort` and `include` stay free text:
 * an unknown value is not an error but a `warning` naming the valid ones and the closest match.
 */
export const MarketListQuerySchema = z.object({
  status: z
    .enum(['active', 'closed', 'resolved', 'all'])
    .optional()
    .meta({ description: 'Default `active`; omitted together with `ids`: all statuses.' }),
  venue: z.string().max(40).optional().meta({
    description:
      '`sim` (every sim-tradeable market), `polymarket` or `kalshi`; `simmer`/`sandbox` are deprecated aliases of `sim`.',
  }),
  import_source: z
    .string()
    .max(40)
    .optional()
    .meta({ description: 'Same as venue, kept for compatibility.' }),
  q: z
    .string()
    .trim()
    .min(2, 'q needs at least 2 characters')
    .max(200)
    .refine(fewWords, WORDS_MESSAGE)
    .optional()
    .meta({
      description: `Keyword search, case-insensitive: each word (at most ${MAX_QUERY_WORDS}) must appear in the question or a tag, in any order ("trump china" finds "Will Trump visit China?").`,
    }),
  ids: csv(50, 'ids').optional().meta({ description: 'Comma-separated market ids, at most 50.' }),
  tags: csv(20, 'tags').optional().meta({ description: 'Comma-separated; a market must carry ALL of them.' }),
  sort: z.string().max(40).optional().meta({
    description:
      '`volume` (default: 24 h volume, ties newest first), `recent`/`created` (newest first), `opportunity`.',
  }),
  include: z
    .string()
    .max(200)
    .optional()
    .meta({ description: 'Comma-separated optional fields; `resolution_criteria` is returned by default.' }),
  tradeable_only: boolParam.default(true).meta({
    description: 'Default true; false also lists active markets whose order book is marked unavailable.',
  }),
  include_analytics_only: boolParam
    .default(false)
    .meta({ description: 'Include tracking markets (real trading only).' }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MARKET_WINDOW, `limit is at most ${MARKET_WINDOW} (the window of matching markets)`)
    .default(50)
    .meta({
      description: `Rows answered, inside the window of at most ${MARKET_WINDOW} matching markets (spec §4.1): limit=${MARKET_WINDOW} with offset=0 reads the whole window.`,
    }),
  offset: z.coerce
    .number()
    .int()
    .min(0)
    .max(MARKET_WINDOW - 1)
    .default(0),
  max_hours_to_resolution: z.coerce
    .number()
    .positive()
    .max(24 * 365 * 5)
    .optional()
    .meta({ description: 'Only markets resolving within this many hours from now.' }),
});
export type MarketListQuery = z.output<typeof MarketListQuerySchema>;

export const HistoryQuerySchema = z.object({
  hours: z.coerce.number().int().min(1).max(168, 'hours is at most 168 (7 days)').default(24),
  interval: z.coerce.number().int().min(5, 'interval is at least 5 minutes').max(1440).default(15),
});

/** `GET /api/markets` (public, no auth; client-contract §5.6). */
export const PublicMarketsQuerySchema = z.object({
  q: z.string().trim().min(2).max(200).refine(fewWords, WORDS_MESSAGE).optional().meta({
    description: 'Each word in the question or a tag, in any order (as on GET /api/sdk/markets).',
  }),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  status: z.enum(['active', 'resolved', 'trending', 'new', 'ending']).default('active'),
  tags: csv(20, 'tags').optional(),
  min_volume: z.coerce.number().min(0).optional(),
  source: venueEnum('ids').optional().meta({
    description:
      "Where the market comes from: `sim` (the service's own markets), `polymarket` or `kalshi` (imported).",
  }),
});
