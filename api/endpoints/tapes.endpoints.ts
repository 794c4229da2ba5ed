import { z } from 'zod';
import { DIGEST_ALGORITHMS } from '../../shared/infra/content-digest.js';
import { UPLOAD_FILES, uploadIdSchema } from '../../shared/domains/tapes/tape-uploads.js';
import { TAPE_FILES } from '../../shared/domains/tapes/tape-urls.js';
import { endpoint } from './endpoint.js';

// Read by the handler (a 422 with a string `detail` the client prints), not refused by the schema.
const ISO_DATE_OR_TIME = z
  .string()
  .max(40)
  .meta({ description: 'ISO date (midnight UTC) or date-time', example: '2026-11-27' });

const TapeRequestSchema = z
  .object({
    t0: ISO_DATE_OR_TIME,
    t1: ISO_DATE_OR_TIME.meta({ description: 'End of the window, excluded: [t0, t1)' }),
    max_markets: z
      .number()
      .int()
      .positive()
      .max(1_000_000)
      .default(300)
      .meta({ description: 'Markets served at most, largest by volume; clamped to 1,000 (5,000 with q).' }),
    min_volume: z
      .number()
      .nonnegative()
      .default(1000)
      .meta({ description: 'Volume floor of a market (USD; $SIM on sim).' }),
    q: z
      .string()
      .max(200)
      // Control characters (NUL, line breaks, escapes) and lone surrogates are in no question or slug.
      .regex(/^[^\p{Cc}\p{Cs}]*$/u, 'q must not contain control characters (NUL, line breaks, escapes)')
      .nullish()
      .meta({ description: 'Case-insensitive substring of the question or slug, applied before the cap.' }),
  })
  .meta({ id: 'TapeRequest' });

const SourceCount = z.object({ source: z.string(), markets: z.number(), quant_rows: z.number() });

const TapeAnswerSchema = z
  .object({
    key: z
      .string()
      .meta({ description: 'Stable for the same dataset revision, window, cap, volume floor and q.' }),
    urls: z
      .object({ markets: z.string(), quant: z.string(), manifest: z.string() })
      .meta({ description: 'Signed download URLs (no authentication; they expire at expires_at).' }),
    expires_at: z.string(),
    markets: z.number(),
    quant_rows: z.number(),
    cached: z.boolean(),
    t0: z.string(),
    t1: z.string(),
    dataset_rev: z.string(),
    markets_requested: z.number(),
    markets_matching_filter: z.number(),
    markets_served: z.number(),
    max_markets_served: z.number(),
    truncated: z.boolean(),
    sources: z.array(SourceCount),
  })
  .meta({ id: 'TapeAnswer' });

const CoverageSchema = z
  .object({
    coverage_t0: z.string().nullable(),
    coverage_t1: z.string().meta({
      description: 'The end of coverage (a date, midnight UTC, excluded): the last t1 a tape may ask for.',
    }),
    live: z.boolean().meta({ description: 'The recorder is running: today is being recorded.' }),
    dataset_rev: z.string(),
    prints: z.number(),
    markets: z.number(),
    sources: z.array(
      z.object({
        source: z.string(),
        first_day: z.string(),
        last_day: z.string(),
        prints: z.number(),
        markets: z.number(),
      }),
    ),
    files: z.number(),
    bytes: z.number(),
    recorder: z.object({ last_run_at: z.string().nullable(), last_run: z.unknown() }),
  })
  .meta({ id: 'TapeCoverage' });

export const tapeEndpoints = {
  requestTape: endpoint({
    method: 'post',
    path: '/api/backtest/tape',
    auth: 'agent',
    tag: 'Backtests',
    summary: 'A tape of recorded markets and trade prints for a window, as two parquet files',
    description:
      'What `simmer backtest` replays a skill over: markets with prints in [t0, t1) (imported venues’ public trades, sim fills, imported datasets), the `max_markets` largest by volume, and their prints. The files are fetched without authentication from signed URLs. A tape already built is answered at once and free (`cached`); a new one counts against TAPE_REQUESTS_PER_MINUTE.',
    body: TapeRequestSchema,
    response: TapeAnswerSchema,
    refuses422: 'error-body',
    errors: [422, 429, 503],
  }),
  tapeCoverage: endpoint({
    method: 'get',
    path: '/api/backtest/tape/coverage',
    auth: 'agent',
    tag: 'Backtests',
    summary: 'What the tape store covers: the first and last day, prints and markets by source',
    response: CoverageSchema,
    errors: [503],
  }),
  downloadTapeFile: endpoint({
    method: 'get',
    path: '/api/backtest/files/{key}/{file}',
    auth: 'none',
    tag: 'Backtests',
    summary: 'One file of a built tape, by its signed URL (Range supported)',
    description: 'The URL comes from `POST /api/backtest/tape`; an expired or altered one answers 403.',
    params: z.object({ key: z.string().regex(/^[0-9a-f]{32}$/), file: z.enum(TAPE_FILES) }),
    query: z.object({ expires: z.string().max(20).optional(), sig: z.string().max(100).optional() }),
    response: z.string().meta({ format: 'binary' }),
    produces: 'application/octet-stream',
    errors: [403, 404],
  }),
  importTape: endpoint({
    method: 'post',
    path: '/api/admin/tapes/import',
    auth: 'operator',
    tag: 'Operator',
    summary: 'Loads an uploaded parquet pair (markets, quant) into the tape store as a source of its own',
    description:
      'Upload the two files first with `PUT /api/admin/tapes/uploads/{upload_id}/markets.parquet` and `…/quant.parquet` (raw bodies); `npm run tape:import -- --base-url` does both. Importing the same files again writes nothing.',
    body: z.object({
      upload_id: uploadIdSchema,
      source: z
        .string()
        .regex(/^[a-z0-9][a-z0-9-]{0,62}$/)
        .meta({ description: 'The source’s name, e.g. pm-onchain-2025' }),
    }),
    response: z
      .object({
        source: z.string(),
        markets: z.number(),
        prints: z.number(),
        first_day: z.string().nullable(),
        last_day: z.string().nullable(),
        orphan_prints: z.number(),
        already_imported: z.boolean(),
      })
      .meta({ id: 'TapeImportSummary' }),
    refuses422: 'error-body',
    errors: [404, 422],
  }),
  adminTapes: endpoint({
    method: 'get',
    path: '/api/admin/tapes',
    auth: 'operator',
    tag: 'Operator',
    summary: 'The backtest tape store: coverage, sizes, sources and the recorder’s last run',
    response: CoverageSchema,
  }),
};

const DIGEST_FIELD = (name: string, what: string) =>
  z
    .string()
    .max(1000)
    .optional()
    .meta({
      description: `RFC 9530 ${name}: ${what} (${Object.keys(DIGEST_ALGORITHMS).join(' or ')}, base64 between colons). A body whose bytes do not have it is refused (400 \`content_digest_mismatch\`) and nothing of it is written; without the field the body is taken unchecked.`,
      example: 'sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:',
    });

/**
 * `PUT /api/admin/tapes/uploads/{upload_id}/{file}`: not a row of the endpoint table (its body is a
 * raw file; api/http/tape-uploads.ts serves it), published in the OpenAPI document from this.
 */
export const tapeUploadRoute = {
  method: 'put',
  path: '/api/admin/tapes/uploads/{upload_id}/{file}',
  summary: 'Uploads one file of a dataset to import (raw body), checked against its Content-Digest',
  description:
    'Send both files under one upload id, then `POST /api/admin/tapes/import`; `npm run tape:import -- --base-url` does all three and sends each file’s `Content-Digest`. An upload never imported is removed after a day.',
  params: z.object({ upload_id: uploadIdSchema, file: z.enum(UPLOAD_FILES) }),
  headers: z.object({
    'Content-Digest': DIGEST_FIELD('Content-Digest', 'the digest of the body as sent'),
    'Repr-Digest': DIGEST_FIELD('Repr-Digest', 'the digest of the file (the same bytes: a whole body)'),
  }),
  body: z.string().meta({ format: 'binary' }),
  response: z
    .object({ upload_id: z.string(), file: z.enum(UPLOAD_FILES), bytes: z.number() })
    .meta({ id: 'TapeUploadAnswer' }),
  errors: {
    400: 'A digest field that cannot be read or names no algorithm checked here (`content_digest_invalid`), or a body that does not have the digest announced (`content_digest_mismatch`); both answer `Want-Content-Digest`',
    404: 'An upload id that is not a uuid, or a file other than markets.parquet and quant.parquet',
    413: 'A file larger than the service takes by upload (import it on the service’s machine instead)',
  },
} as const;
