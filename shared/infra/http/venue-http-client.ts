import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { backoffDelayMs, parseRetryAfterMs, sleep as realSleep } from './backoff.js';
import { CircuitBreaker, type CircuitBreakerOptions, type CircuitState } from './circuit-breaker.js';
import { VenueHttpError, type VenueHttpErrorKind } from './venue-http-error.js';
import { CIRCUIT_STATE_VALUE, type VenueMetrics, type VenueOutcome } from './venue-metrics.js';
import { buildVenueUrl, parseBaseUrl, type Query, type VenueBase } from './venue-url.js';

export { VenueHttpError, type VenueHttpErrorKind } from './venue-http-error.js';
export type { Query, QueryValue } from './venue-url.js';

export interface VenueHttpClientOptions {
  /** Venue name for metrics, logs and errors, e.g. `polymarket`. */
  venue: string;
  /** Origin plus optional path prefix, e.g. `https://gamma-api.polymarket.com` or `http://127.0.0.1:4000/gamma`. */
  baseUrl: string;
  /** Per attempt, covering the whole answer including the body. Default 5000. */
  timeoutMs?: number;
  /** Extra attempts after the first, for retryable failures of idempotent requests. Default 2. */
  retries?: number;
  /** First retry's backoff; doubles per retry, with jitter. Default 200. */
  backoffMs?: number;
  /** Ceiling of one backoff. Default 2000. */
  maxBackoffMs?: number;
  /** Longest Retry-After we wait out; a longer one fails the call at once (retryable). Default 10 000. */
  maxRetryAfterMs?: number;
  breaker?: Pick<CircuitBreakerOptions, 'failureThreshold' | 'cooldownMs'>;
  metrics: VenueMetrics;
  log: Logger;
  /** Clock for the breaker, health timestamps and Retry-After dates. Default `Date.now`. */
  now?: () => number;
  /** Sent with every request (e.g. an API key header). Never logged. */
  headers?: Record<string, string>;
  /** Injectable for tests, so retry delays can be observed without being waited out. */
  sleep?: (ms: number) => Promise<void>;
}

interface RequestOptions<S extends z.ZodType> {
  /** Metric label naming the upstream endpoint, e.g. `gamma.markets` (a fixed set, never ids). */
  endpoint: string;
  /** The expected body. Validated on every answer: a changed upstream shape must fail loudly. */
  schema: S;
  query?: Query;
  headers?: Record<string, string>;
  /** The caller's own cancellation (e.g. shutdown); rethrown as is, counted neither way. */
  signal?: AbortSignal;
}

export interface GetOptions<S extends z.ZodType> extends RequestOptions<S> {
  /** `'null'`: a 404 resolves to null (the thing does not exist); default `'error'`. */
  notFoundAs?: 'null' | 'error';
}

export interface PostOptions<S extends z.ZodType> extends RequestOptions<S> {
  /** Sent as JSON. */
  body: unknown;
  /**
   * Set only when sending the same POST twice cannot do anything twice (e.g. it carries a client
   * order id the venue deduplicates on). Then it is retried like a GET; otherwise never, since a
   * timeout or 5xx does not tell whether the venue acted on it.
   */
  idempotent?: boolean;
}

export interface VenueHealth {
  venue: string;
  base_url: string;
  circuit: CircuitState;
  last_success_at: string | null;
  last_error_at: string | null;
  last_error: string | null;
  consecutive_failures: number;
}

type Method = 'GET' | 'POST' | 'DELETE';

interface CallSpec {
  method: Method;
  path: string;
  endpoint: string;
  schema: z.ZodType;
  query: Query | undefined;
  headers: Record<string, string> | undefined;
  signal: AbortSignal | undefined;
  body?: string;
  notFoundAsNull: boolean;
  /** Safe to send again: GETs, and POSTs the caller declared idempotent. */
  repeatable: boolean;
}

/** One attempt's result. `hostFault` decides the breaker; `transient` whether a retry may help. */
type AttemptResult =
  | { ok: true; value: unknown; outcome: 'ok' | 'not_found' }
  | {
      ok: false;
      error: VenueHttpError;
      outcome: VenueOutcome;
      hostFault: boolean;
      transient: boolean;
      retryAfterMs?: number;
    };

const MAX_ERROR_TEXT = 300;
// Connection-level failures where the request cannot have reached the venue, so even a
// non-idempotent POST may be sent again.
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);

/**
 * The one way the service talks HTTP to an external venue: fixed base URL (callers pass paths),
 * per-attempt timeout, bounded retries with backoff for idempotent requests, a circuit breaker for
 * the host, zod validation of every body, and metrics per venue and endpoint. Every failure comes
 * out as a VenueHttpError whose `kind` and `retryable` say what to do about it.
 */
export class VenueHttpClient {
  readonly venue: string;
  readonly baseUrl: string;
  private readonly base: VenueBase;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly backoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly maxRetryAfterMs: number;
  private readonly breaker: CircuitBreaker;
  private readonly metrics: VenueMetrics;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly headers: Record<string, string>;
  private readonly sleep: (ms: number) => Promise<void>;
  private lastSuccessAt: number | null = null;
  private lastErrorAt: number | null = null;
  private lastError: string | null = null;

  constructor(options: VenueHttpClientOptions) {
    this.venue = options.venue;
    this.base = parseBaseUrl(options.baseUrl);
    this.baseUrl = this.base.origin + this.base.prefix;
    this.timeoutMs = options.timeoutMs ?? 5000;
    this.retries = Math.max(0, options.retries ?? 2);
    this.backoffMs = options.backoffMs ?? 200;
    this.maxBackoffMs = options.maxBackoffMs ?? 2000;
    this.maxRetryAfterMs = options.maxRetryAfterMs ?? 10_000;
    this.metrics = options.metrics;
    this.log = options.log.child({ venue: options.venue, host: this.base.host });
    this.now = options.now ?? Date.now;
    this.headers = options.headers ?? {};
    this.sleep = options.sleep ?? realSleep;
    this.breaker = new CircuitBreaker({
      ...options.breaker,
      now: this.now,
      onStateChange: (to, from) => {
        this.metrics.circuitState.set({ venue: this.venue, host: this.base.host }, CIRCUIT_STATE_VALUE[to]);
        const fields = { circuit: to, from, consecutive_failures: this.breaker.consecutiveFailures };
        if (to === 'open')
          this.log.warn(fields, 'venue circuit opened: failing fast until the cool-down ends');
        else this.log.info(fields, `venue circuit ${to}`);
      },
    });
    this.metrics.trackCircuit(this.venue, this.base.host, () => this.breaker.state);
  }

  get<S extends z.ZodType>(
    path: string,
    opts: GetOptions<S> & { notFoundAs: 'null' },
  ): Promise<z.output<S> | null>;
  get<S extends z.ZodType>(path: string, opts: GetOptions<S>): Promise<z.output<S>>;
  async get<S extends z.ZodType>(path: string, opts: GetOptions<S>): Promise<z.output<S> | null> {
    return (await this.call({
      method: 'GET',
      path,
      endpoint: opts.endpoint,
      schema: opts.schema,
      query: opts.query,
      headers: opts.headers,
      signal: opts.signal,
      notFoundAsNull: opts.notFoundAs === 'null',
      repeatable: true,
    })) as z.output<S> | null;
  }

  async post<S extends z.ZodType>(path: string, opts: PostOptions<S>): Promise<z.output<S>> {
    return (await this.call({
      method: 'POST',
      path,
      endpoint: opts.endpoint,
      schema: opts.schema,
      query: opts.query,
      headers: opts.headers,
      signal: opts.signal,
      body: JSON.stringify(opts.body),
      notFoundAsNull: false,
      repeatable: opts.idempotent === true,
    })) as z.output<S>;
  }

  /** A DELETE (a cancel): repeatable, since cancelling twice cancels once. `body` is sent as JSON. */
  async delete<S extends z.ZodType>(
    path: string,
    opts: RequestOptions<S> & { body?: unknown },
  ): Promise<z.output<S>> {
    return (await this.call({
      method: 'DELETE',
      path,
      endpoint: opts.endpoint,
      schema: opts.schema,
      query: opts.query,
      headers: opts.headers,
      signal: opts.signal,
      ...(opts.body === undefined ? {} : { body: JSON.stringify(opts.body) }),
      notFoundAsNull: false,
      repeatable: true,
    })) as z.output<S>;
  }

  health(): VenueHealth {
    return {
      venue: this.venue,
      base_url: this.baseUrl,
      circuit: this.breaker.state,
      last_success_at: iso(this.lastSuccessAt),
      last_error_at: iso(this.lastErrorAt),
      last_error: this.lastError,
      consecutive_failures: this.breaker.consecutiveFailures,
    };
  }

  private async call(spec: CallSpec): Promise<unknown> {
    let url: URL;
    try {
      url = buildVenueUrl(this.base, spec.path, spec.query);
    } catch (err) {
      // A programming error or hostile input, never sent: no metric, no breaker verdict.
      throw this.error('client', spec, (err as Error).message, { retryable: false });
    }

    const permit = this.breaker.tryAcquire();
    if (!permit) {
      this.metrics.requests.inc({ venue: this.venue, endpoint: spec.endpoint, outcome: 'circuit_open' });
      const openUntil = this.breaker.openUntil;
      throw this.error('circuit_open', spec, `circuit open for ${this.base.host}: not sent`, {
        retryable: true,
        ...(openUntil === null ? {} : { retryAfterMs: Math.max(0, openUntil - this.now()) }),
      });
    }

    let settled = false;
    try {
      // Half-open lets exactly one request probe the host, so the trial is not retried.
      const attempts = permit.trial || !spec.repeatable ? 1 : 1 + this.retries;
      for (let attempt = 1; ; attempt++) {
        const result = await this.attempt(spec, url);
        if (result.ok) {
          this.onSuccess();
          settled = true;
          return result.outcome === 'not_found' ? null : result.value;
        }
        const { error } = result;
        const retryAfterTooLong =
          result.retryAfterMs !== undefined && result.retryAfterMs > this.maxRetryAfterMs;
        const retry =
          result.transient &&
          attempt < attempts &&
          !retryAfterTooLong &&
          this.breaker.state !== 'open' && // another call opened it meanwhile: stop adding load
          !spec.signal?.aborted;
        if (!retry) {
          if (result.hostFault) this.onFailure(error);
          else this.onSuccess(false); // the host answered; the fault is in our request
          settled = true;
          throw error;
        }
        const delay =
          result.retryAfterMs ?? backoffDelayMs(attempt, this.backoffMs, this.maxBackoffMs, Math.random);
        this.log.debug(
          { endpoint: spec.endpoint, attempt, kind: error.kind, status: error.status, delay_ms: delay },
          'venue request failed, retrying',
        );
        await this.sleep(delay);
      }
    } finally {
      if (!settled) this.breaker.release(permit);
    }
  }

  /** One HTTP exchange, classified. Only the caller's own abort escapes as an exception. */
  private async attempt(spec: CallSpec, url: URL): Promise<AttemptResult> {
    const labels = { venue: this.venue, endpoint: spec.endpoint };
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const signal = spec.signal ? AbortSignal.any([timeout, spec.signal]) : timeout;
    const started = performance.now();
    const finish = (result: AttemptResult): AttemptResult => {
      this.metrics.duration.observe(labels, (performance.now() - started) / 1000);
      this.metrics.requests.inc({ ...labels, outcome: result.outcome });
      return result;
    };

    let status: number;
    let text: string;
    let retryAfterHeader: string | null;
    try {
      const res = await fetch(url, {
        method: spec.method,
        headers: {
          accept: 'application/json',
          ...(spec.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...this.headers,
          ...spec.headers,
        },
        body: spec.body,
        signal,
        // A redirect could lead anywhere; we only ever talk to the configured host.
        redirect: 'manual',
      });
      status = res.status;
      retryAfterHeader = res.headers.get('retry-after');
      // Read in full (under the same timeout) so the connection goes back to the pool.
      text = await res.text();
    } catch (err) {
      if (spec.signal?.aborted && !timeout.aborted) throw spec.signal.reason ?? err;
      if (timeout.aborted) {
        return finish({
          ok: false,
          outcome: 'timeout',
          hostFault: true,
          transient: true,
          error: this.error('timeout', spec, `no answer within ${this.timeoutMs} ms`, {
            retryable: spec.repeatable,
            cause: err,
          }),
        });
      }
      const code = errorCode(err);
      return finish({
        ok: false,
        outcome: 'network',
        hostFault: true,
        transient: true,
        error: this.error('network', spec, `request failed${code ? ` (${code})` : ''}`, {
          retryable: spec.repeatable || (code !== undefined && NOT_SENT_CODES.has(code)),
          cause: err,
        }),
      });
    }

    if (status === 404 && spec.notFoundAsNull) return finish({ ok: true, value: null, outcome: 'not_found' });

    if (status === 429 || status >= 500) {
      const retryAfterMs = parseRetryAfterMs(retryAfterHeader, this.now()) ?? undefined;
      return finish({
        ok: false,
        outcome: status === 429 ? 'rate_limited' : 'server_error',
        hostFault: true,
        transient: true,
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
        error: this.error('http', spec, `HTTP ${status}: ${venueErrorText(text)}`, {
          status,
          // A 429 was refused unprocessed; a 5xx may have been acted on.
          retryable: status === 429 || spec.repeatable,
          ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
        }),
      });
    }

    if (status < 200 || status >= 300) {
      // 4xx (and a redirect we will not follow): our request is wrong, repeating it will not help.
      return finish({
        ok: false,
        outcome: status === 404 ? 'not_found' : 'client_error',
        hostFault: false,
        transient: false,
        error: this.error(
          status >= 400 ? 'client' : 'http',
          spec,
          `HTTP ${status}: ${venueErrorText(text)}`,
          {
            status,
            retryable: false,
          },
        ),
      });
    }

    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch (err) {
      this.log.warn({ endpoint: spec.endpoint, status, bytes: text.length }, 'venue answered malformed JSON');
      return finish({
        ok: false,
        outcome: 'schema',
        hostFault: true,
        transient: false,
        error: this.error('schema', spec, 'malformed JSON in the answer', {
          status,
          retryable: false,
          cause: err,
        }),
      });
    }
    const parsed = spec.schema.safeParse(json);
    if (!parsed.success) {
      const issues = parsed.error.issues
        .slice(0, 20)
        .map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.code}`);
      // Issue paths only: the body may be large and is the venue's data, not ours to log.
      this.log.warn(
        { endpoint: spec.endpoint, status, issues },
        'venue answer does not match the expected schema',
      );
      return finish({
        ok: false,
        outcome: 'schema',
        hostFault: true,
        transient: false,
        error: this.error('schema', spec, `unexpected answer shape (${issues.slice(0, 3).join('; ')})`, {
          status,
          retryable: false,
          issues,
        }),
      });
    }
    return finish({ ok: true, value: parsed.data, outcome: 'ok' });
  }

  /** `healthy`: false for a 4xx, which proves the host is up but is no sign of a working venue. */
  private onSuccess(healthy = true): void {
    this.breaker.recordSuccess();
    if (healthy) this.lastSuccessAt = this.now();
  }

  private onFailure(error: VenueHttpError): void {
    this.breaker.recordFailure();
    this.lastErrorAt = this.now();
    this.lastError = `${error.kind}: ${error.message}`;
  }

  private error(
    kind: VenueHttpErrorKind,
    spec: CallSpec,
    detail: string,
    extra: { retryable: boolean; status?: number; retryAfterMs?: number; issues?: string[]; cause?: unknown },
  ): VenueHttpError {
    return new VenueHttpError({
      kind,
      venue: this.venue,
      endpoint: spec.endpoint,
      // The path, never the query: it is what identifies the call, and queries can get long.
      message: `${this.venue} ${spec.method} ${spec.path}: ${detail}`,
      ...extra,
    });
  }
}

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** undici reports network failures as `TypeError('fetch failed')` with the system error as cause. */
function errorCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

/**
 * The venue's own explanation from an error body: `{"error": "..."}`, `{"error": {"message": ...}}`
 * or `{"message": ...}`, else the start of the raw text (often an HTML error page).
 */
export function venueErrorText(text: string): string {
  try {
    const body = JSON.parse(text) as unknown;
    if (body && typeof body === 'object') {
      const { error, message } = body as { error?: unknown; message?: unknown };
      if (typeof error === 'string') return truncate(error);
      if (
        error &&
        typeof error === 'object' &&
        typeof (error as { message?: unknown }).message === 'string'
      ) {
        return truncate((error as { message: string }).message);
      }
      if (typeof message === 'string') return truncate(message);
    }
  } catch {
    // not JSON: fall through to the raw text
  }
  return truncate(text.trim().replace(/\s+/g, ' ')) || '(empty body)';
}

function truncate(text: string): string {
  return text.length > MAX_ERROR_TEXT ? `${text.slice(0, MAX_ERROR_TEXT)}…` : text;
}
