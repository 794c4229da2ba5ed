import { z } from 'zod';

/**
 * The answers of the import endpoints (client-contract §5.6), one per venue: the same fields, with
 * the venue's own id of a market under its key.
 */

/** The fields every import answer has, whichever venue; each venue adds its own id key. */
const ImportedRowBase = {
  market_id: z.string(),
  question: z.string(),
  outcome_name: z.string().nullable(),
  current_probability: z.number(),
  status: z.enum(['imported', 'already_exists', 'resolved']),
};
const importAnswerBase = {
  success: z.boolean(),
  status: z.enum(['imported', 'already_exists', 'resolved']),
  market_id: z.string(),
  question: z.string(),
  current_probability: z.number(),
  external_price_yes: z.number().nullable(),
  resolves_at: z.string().nullable(),
  event_id: z.string().nullable(),
  event_name: z.string().nullable(),
  markets_imported: z.number(),
  markets_skipped: z.number(),
  warning: z.string().optional(),
};

export const ImportResponseSchema = z
  .looseObject({
    ...importAnswerBase,
    polymarket_id: z.string(),
    import_source: z.literal('polymarket'),
    markets: z.array(z.object({ ...ImportedRowBase, polymarket_id: z.string() })),
  })
  .meta({
    id: 'MarketImport',
    description: 'Single-market keys (market_id, …) describe the first market; `markets` lists all.',
  });

export const KalshiImportResponseSchema = z
  .looseObject({
    ...importAnswerBase,
    kalshi_ticker: z.string(),
    import_source: z.literal('kalshi'),
    markets: z.array(z.object({ ...ImportedRowBase, kalshi_ticker: z.string() })),
  })
  .meta({
    id: 'KalshiMarketImport',
    description:
      'Single-market keys (market_id, kalshi_ticker, …) describe the first market; `markets` lists all (an event import: every outcome imported).',
  });

export const VenueImportResponseSchema = z
  .looseObject({
    ...importAnswerBase,
    import_source: z.string(),
    markets: z.array(z.looseObject(ImportedRowBase)),
  })
  .meta({
    id: 'VenueMarketImport',
    description:
      'Single-market keys describe the first market; `markets` lists all. The venue id key is `polymarket_id`, `kalshi_ticker` or, on other venues, `external_id`.',
  });
