/**
 * The one error type the service throws on purpose. The API turns it into the contract's body
 * (`detail` and `error` with the same text, plus `fix`); workers turn `retryable: false` into an
 * UnrecoverableError. Anything else that escapes is a bug: a 500 with the stack in the log only.
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

export const notFound = (what: string, fix: string, hint?: string) =>
  new AppError(404, 'not_found', `${what} not found`, fix, hint ? { hint } : {});

export const unavailable = (what: string, cause?: unknown) =>
  new AppError(503, 'service_unavailable', `${what} is unavailable right now`, 'Retry in a few seconds.', {
    retryable: true,
    cause,
  });
