/**
 * Why a call to a venue failed, in terms a caller can act on:
 * - `network`: no HTTP answer (refused, reset, DNS).
 * - `timeout`: no complete answer within the client's timeout.
 * - `http`: the venue answered 5xx or 429 (its problem, or it is throttling us).
 * - `client`: any other 4xx (our request is wrong; retrying the same request will not help).
 * - `schema`: the body is not JSON or not the shape we expect (the venue changed its API).
 * - `circuit_open`: not sent at all, the venue's host has been failing and is being left alone.
 */
export type VenueHttpErrorKind = 'network' | 'timeout' | 'http' | 'client' | 'schema' | 'circuit_open';

export interface VenueHttpErrorInit {
  kind: VenueHttpErrorKind;
  venue: string;
  endpoint: string;
  message: string;
  /** Whether calling again later may succeed without risking a duplicate side effect. */
  retryable: boolean;
  status?: number;
  /** From Retry-After, or the remaining cool-down of an open circuit. */
  retryAfterMs?: number;
  /** For `schema`: the paths of the fields that did not match (never the body itself). */
  issues?: string[];
  cause?: unknown;
}

export class VenueHttpError extends Error {
  readonly kind: VenueHttpErrorKind;
  readonly venue: string;
  readonly endpoint: string;
  readonly status: number | undefined;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  readonly issues: string[] | undefined;

  constructor(init: VenueHttpErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'VenueHttpError';
    this.kind = init.kind;
    this.venue = init.venue;
    this.endpoint = init.endpoint;
    this.status = init.status;
    this.retryable = init.retryable;
    this.retryAfterMs = init.retryAfterMs;
    this.issues = init.issues;
  }
}
