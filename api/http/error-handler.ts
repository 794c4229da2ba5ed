import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError } from '../../shared/infra/errors.js';
import { VenueHttpError } from '../../shared/infra/http/venue-http-error.js';
import { venueUnavailable } from '../../shared/domains/venues/venue-unavailable.js';
import { RequestValidationError } from './validation.js';

/** The contract's error body: `detail` and `error` carry the same text (Python reads `error`, MCP `detail`). */
export function errorBody(message: string, fix: string, extra: Record<string, unknown> = {}) {
  return { detail: message, error: message, fix, ...extra };
}

interface BodyParserError extends Error {
  type?: string;
  status?: number;
  limit?: number;
}

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

export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  if (res.headersSent) return;
  if (err instanceof VenueHttpError) err = venueUnavailable(err);
  if (err instanceof RequestValidationError) {
    const where = err.items.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; ');
    res.status(422).json({
      detail: err.items,
      error: `Validation failed: ${where}`,
      fix: err.fix ?? 'Correct the fields listed in detail (loc names each one) and send the request again.',
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
  const parserError = err as BodyParserError;
  if (parserError.type === 'entity.parse.failed') {
    res
      .status(400)
      .json(
        errorBody(
          `Malformed JSON body: ${parserError.message}`,
          'Send a valid JSON document with Content-Type: application/json.',
        ),
      );
    return;
  }
  if (parserError.type === 'entity.too.large') {
    res
      .status(413)
      .json(
        errorBody(
          `Request body too large (limit ${parserError.limit} bytes)`,
          'Send a smaller body; no endpoint needs more than a few kilobytes.',
        ),
      );
    return;
  }
  if (parserError.type === 'encoding.unsupported' || parserError.type === 'charset.unsupported') {
    res
      .status(415)
      .json(
        errorBody(
          `Unsupported body encoding: ${parserError.message}`,
          'Send UTF-8 JSON without a content encoding.',
        ),
      );
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
