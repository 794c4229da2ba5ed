import { z } from 'zod';

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

const ImportedRowSchema = z.object({
  market_id: z.string(),
  question: z.string(),
  outcome_name: z.string().nullable(),
  current_probability: z.number(),
  polymarket_id: z.string(),
  status: z.enum(['imported', 'already_exists', 'resolved']),
});

export const ImportResponseSchema = z
  .looseObject({
    success: z.boolean(),
    status: z.enum(['imported', 'already_exists', 'resolved']),
    market_id: z.string(),
    question: z.string(),
    current_probability: z.number(),
    external_price_yes: z.number().nullable(),
    resolves_at: z.string().nullable(),
    polymarket_id: z.string(),
    import_source: z.literal('polymarket'),
    event_id: z.string().nullable(),
    event_name: z.string().nullable(),
    markets: z.array(ImportedRowSchema),
    markets_imported: z.number(),
    markets_skipped: z.number(),
    warning: z.string().optional(),
  })
  .meta({
    id: 'MarketImport',
    description: 'Single-market keys (market_id, …) describe the first market; `markets` lists all.',
  });

export const ImportableQuerySchema = z.object({
  min_volume: z.coerce
    .number()
    .min(0)
    .default(10_000)
    .meta({ description: '24 h volume floor in USD (at least 1,000).' }),
  limit: z.coerce.number().int().min(1).max(100).default(50),
  category: z.string().trim().max(60).optional(),
  venue: z.enum(['polymarket', 'kalshi']).default('polymarket'),
  q: z.string().trim().max(200).optional(),
});
export type ImportableQuery = z.output<typeof ImportableQuerySchema>;
