import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError, errorBody } from '../../shared/infra/errors.js';
import { VenueHttpError } from '../../shared/infra/http/venue-http-error.js';
import { JobControlError, NeverRetry } from '../../shared/infra/queue/job-errors.js';
import { venueUnavailable } from '../../shared/domains/venues/venue-unavailable.js';
import { databaseUnavailable, isDatabaseUnavailable } from '../../shared/infra/database-unavailable.js';
import { isRedisUnavailable, redisUnavailable } from '../../shared/infra/redis-unavailable.js';
import { bodyParserFailure } from './json-body.js';
import { RequestValidationError } from './validation.js';

export { errorBody };

export const notFoundHandler: RequestHandler = (req, res) => {
  res
    .status(404)
    .json(
      errorBody(
        `Not found: ${req.method} ${req.path}`,
        'Check the method and path; every endpoint is listed at /docs and /openapi.json.',
      ),
    );
};

/** Express's router could not decode a path parameter (`%E0%A4%A`): the caller's 400, not our 500. */
const malformedPath = (err: unknown) =>
  err instanceof URIError && (err as URIError & { status?: number }).status === 400
    ? new AppError(
        400,
        'malformed_path',
        `Malformed percent-encoding in the path: ${err.message}`,
        'Percent-encode path segments as UTF-8 (e.g. encodeURIComponent) and send the request again.',
      )
    : undefined;

/**
 * A job's failure that reached a request (work a job does, run on the request's path): a job that
 * cannot succeed is a 404 when what it names is missing, else a 500; work not ready yet and a venue
 * outage are retryable 503s.
 */
const jobFailure = (err: unknown) => {
  if (!(err instanceof JobControlError)) return undefined;
  if (err instanceof NeverRetry)
    return new AppError(err.options.missing ? 404 : 500, err.code, err.message, err.fix, {
      retryable: false,
    });
  return new AppError(503, err.code, err.message, err.fix, { retryable: true });
};

export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  if (res.headersSent) return;
  if (err instanceof VenueHttpError) err = venueUnavailable(err);
  err = malformedPath(err) ?? jobFailure(err) ?? err;
  // An AppError already names its outage (idempotency_unavailable, limits_unavailable, …): keep it.
  if (!(err instanceof AppError)) {
    if (isDatabaseUnavailable(err)) err = databaseUnavailable(err);
    else if (isRedisUnavailable(err)) err = redisUnavailable(err);
  }
  const unreadableBody = bodyParserFailure(err, req);
  if (unreadableBody) {
    // The caller's mistake, not ours: no stack, and not at error level where alerts look.
    req.log?.warn({ status: unreadableBody.status, code: unreadableBody.code }, unreadableBody.message);
    err = unreadableBody;
  }
  if (err instanceof RequestValidationError) {
    const where = err.items.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; ');
    res.status(422).json({
      detail: err.items,
      error: `Validation failed: ${where}`,
      fix: err.fix ?? 'Correct the fields listed in detail (loc names each one) and send the request again.',
      ...(err.code ? { error_code: err.code } : {}),
    });
    return;
  }
  if (err instanceof AppError) {
    for (const [name, value] of Object.entries(err.options.headers ?? {})) res.setHeader(name, value);
    const extra: Record<string, unknown> = { ...err.options.body, error_code: err.code };
    if (err.options.hint) extra.hint = err.options.hint;
    if (err.status >= 500 || err.options.retryable !== undefined) extra.retryable = err.retryable;
    if (err.status >= 500) extra.request_id = req.id;
    if (err.status >= 500) req.log?.warn({ err: err.cause ?? err }, err.message);
    res.status(err.status).json(errorBody(err.message, err.fix, extra));
    return;
  }
  req.log?.error({ err }, 'unhandled error');
  res.status(500).json({
    ...errorBody(
      'Internal server error',
      'Retry the request; if it keeps failing, report the request_id to the operator.',
    ),
    request_id: req.id,
    retryable: true,
  });
};
