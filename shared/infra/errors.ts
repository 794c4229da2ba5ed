/**
 * The error type a request's code throws on purpose. The API turns it into the contract's body
 * (`detail` and `error` with the same text, plus `fix`); workers turn `retryable: false` into an
 * UnrecoverableError. A job's work says how it failed in the job's terms instead (RetryLater,
 * NeverRetry, VenueOutage: queue/job-errors.ts). Anything else that escapes is a bug: a 500 with
 * the stack in the log only.
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    /** Stable machine-readable code, e.g. `not_found`, `rate_limited`. */
    readonly code: string,
    message: string,
    /** What the caller should do about it, in one sentence. */
    readonly fix: string,
    readonly options: {
      retryable?: boolean;
      hint?: string;
      /** Extra top-level fields for the response body (e.g. `claim_url`). */
      body?: Record<string, unknown>;
      headers?: Record<string, string>;
      cause?: unknown;
    } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
  }

  get retryable(): boolean {
    return this.options.retryable ?? this.status >= 500;
  }
}

/** The contract's error body: `detail` and `error` carry the same text (Python reads `error`, MCP `detail`). */
export function errorBody(message: string, fix: string, extra: Record<string, unknown> = {}) {
  return { detail: message, error: message, fix, ...extra };
}

export const notFound = (what: string, fix: string, hint?: string) =>
  new AppError(404, 'not_found', `${what} not found`, fix, hint ? { hint } : {});

/** Long enough for the supervisor to restart an embedded Redis or database and for it to answer. */
export const OUTAGE_RETRY_AFTER_SECONDS = 2;

/**
 * A 503 the clients retry (`retryable`, Retry-After): a store or a part of our own is down for the
 * moment, never the 500 of an unexpected error. Every outage answer is made here.
 */
export const outage = (code: string, message: string, fix: string, cause?: unknown) =>
  new AppError(503, code, message, fix, {
    retryable: true,
    headers: { 'Retry-After': String(OUTAGE_RETRY_AFTER_SECONDS) },
    cause,
  });

/** A part of our own that is down for the moment (the job queue, the rate limiter, …): retried soon. */
export const unavailable = (what: string, cause?: unknown) =>
  outage(
    'service_unavailable',
    `${what} is unavailable right now`,
    'Retry in a few seconds (see Retry-After).',
    cause,
  );

/**
 * The 429 of a spent limit: `points` per window (`describe` says which), free again in
 * `msBeforeNext`; the clients wait for Retry-After.
 */
export function rateLimited(points: number, describe: string, msBeforeNext: number): AppError {
  const retryAfter = Math.max(1, Math.ceil(msBeforeNext / 1000));
  return new AppError(
    429,
    'rate_limited',
    `Rate limit exceeded: ${points} ${describe}`,
    `Wait ${retryAfter} seconds before retrying (see the Retry-After header).`,
    {
      retryable: true,
      headers: {
        'Retry-After': String(retryAfter),
        'X-RateLimit-Limit': String(points),
        'X-RateLimit-Remaining': '0',
      },
      body: { limit: points, retry_after: retryAfter },
    },
  );
}

/** One entry of the spec's validation error body (§2.5), FastAPI-shaped as the clients expect. */
export interface ValidationItem {
  loc: string[];
  msg: string;
  type: string;
  input: unknown;
  ctx: Record<string, unknown>;
}

/** A 422: the request parsed but does not satisfy the endpoint's schema or a rule checked later. */
export class RequestValidationError extends Error {
  constructor(
    readonly items: ValidationItem[],
    /** Replaces the generic fix when the caller knows better (e.g. which fields can be set). */
    readonly fix?: string,
    /** A stable code (`error_code`) when one rule refused the request, e.g. `body_key_invalid`. */
    readonly code?: string,
  ) {
    super(items.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; '));
    this.name = 'RequestValidationError';
  }
}

/** A 422 about one request field, for rules the schema cannot express (e.g. limits that depend on the tier). */
export const invalidField = (
  field: string,
  msg: string,
  input: unknown,
  fix: string,
  part: 'body' | 'query' = 'body',
) => new RequestValidationError([{ loc: [part, field], msg, type: 'value_error', input, ctx: {} }], fix);
