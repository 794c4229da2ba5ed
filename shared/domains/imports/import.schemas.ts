import { z } from 'zod';
import { DEFAULT_IMPORT_VENUE } from '../venues/venue-id.js';
import { venueEnum } from '../venues/venue-schemas.js';
import { fewWords, WORDS_MESSAGE } from '../../util/search-words.js';

export const ImportRequestSchema = z.object({
  polymarket_url: z
    .string()
    .trim()
    .min(1)
    .max(2048)
    .meta({ description: 'A polymarket.com event or market URL (never fetched: only its slug is used).' }),
  shared: z.boolean().default(true).meta({
    description: 'Deprecated: imported markets are always public; `false` is accepted with a warning.',
  }),
  market_ids: z
    .array(
      z
        .string()
        .trim()
        .regex(/^0x[0-9a-fA-F]{64}$/, 'a Polymarket condition id (0x + 64 hex)'),
    )
    .max(50)
    .optional()
    .meta({
      description:
        'Condition ids of the outcomes to import from a multi-outcome event (default: the first 10).',
    }),
});
export type ImportRequest = z.output<typeof ImportRequestSchema>;

export const KalshiImportRequestSchema = z.object({
  kalshi_url: z.string().trim().min(1).max(2048).meta({
    description:
      'A kalshi.com market, event or series page URL, or a bare ticker in any case (never fetched: only its tickers are used).',
  }),
});
export type KalshiImportRequest = z.output<typeof KalshiImportRequestSchema>;

export const KalshiEventImportRequestSchema = z.object({
  event_ticker: z.string().trim().min(1).max(2048).meta({
    description: 'A Kalshi event ticker (any case), a market ticker of the event, or a kalshi.com event URL.',
  }),
});
export type KalshiEventImportRequest = z.output<typeof KalshiEventImportRequestSchema>;

export const VenueImportRequestSchema = z.object({
  venue: venueEnum('ids').meta({
    description: 'The venue the market lives on (Polymarket and Kalshi also have endpoints of their own).',
  }),
  url: z.string().trim().min(1).max(2048).meta({
    description:
      'A market, event or series page URL of the venue, or what else its adapter reads (never fetched).',
  }),
});
export type VenueImportRequest = z.output<typeof VenueImportRequestSchema>;

export const ImportableQuerySchema = z.object({
  min_volume: z.coerce
    .number()
    .min(0)
    .default(10_000)
    .meta({ description: '24 h volume floor in USD (at least 1,000).' }),
  limit: z.coerce.number().int().min(1).max(100).default(50),
  category: z.string().trim().max(60).optional(),
  venue: venueEnum('external').default(DEFAULT_IMPORT_VENUE),
  q: z.string().trim().max(200).refine(fewWords, WORDS_MESSAGE).optional().meta({
    description: 'Keyword search: each word in the question, its event, outcome, slug or tags, in any order.',
  }),
});
export type ImportableQuery = z.output<typeof ImportableQuerySchema>;
