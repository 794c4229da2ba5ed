import express, { type Request, type RequestHandler } from 'express';
import { AppError, RequestValidationError } from '../../shared/infra/errors.js';
import { firstShapeProblem, type JsonPath } from '../../shared/util/walk-json.js';

/** The media types read as JSON bodies: `application/json` and any `+json` suffix type. */
const JSON_TYPES = ['application/json', '+json'];

const SEND_JSON = 'Send the body as UTF-8 JSON with `Content-Type: application/json`.';

/**
 * Body routes read JSON only. A body of another type would otherwise be skipped by the parser and
 * reported as "body: Field required", which sends the caller after the wrong problem; a request
 * without a body goes on, so its missing fields are still listed (422).
 */
const requireJsonContentType: RequestHandler = (req, _res, next) => {
  const hasContent =
    req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  if (hasContent && !req.is(JSON_TYPES)) {
    throw new AppError(
      415,
      'unsupported_media_type',
      `Unsupported Content-Type: ${req.headers['content-type'] ?? '(none)'}; this endpoint reads JSON`,
      SEND_JSON,
    );
  }
  next();
};

/**
 * Deeper than this, a body is refused before any handler sees it. No endpoint's body comes near
 * (free-form fields stop at 20 levels of their own); past a few thousand levels, everything that
 * recurses (JSON.stringify of an error echo or a relayed request, zod, the database driver)
 * overflows the stack, and a 40 kB body can nest 20,000 levels.
 */
export const JSON_BODY_MAX_DEPTH = 64;

/**
 * A body nested too deep (400 `body_too_deep`), or one with an object key the database cannot
 * store (422 `body_key_invalid`, with `loc` naming the key), is refused before any handler sees it.
 * The key rule holds for every body, in one place: a caller's free-form values (a trade's
 * `signal_data`, the automaton's cycles and bandit arms, a skill's config) are stored as sent, and
 * no field of a fixed shape has such a name. A NUL in a stored key failed the database write: a 500.
 */
const refuseUnreadableShape: RequestHandler = (req, _res, next) => {
  const problem = firstShapeProblem(req.body, JSON_BODY_MAX_DEPTH);
  if (problem?.kind === 'too_deep') {
    throw new AppError(
      400,
      'body_too_deep',
      `JSON body nested deeper than ${JSON_BODY_MAX_DEPTH} levels (at ${problem.path.slice(0, 5).join('.')}…)`,
      `Send a body with at most ${JSON_BODY_MAX_DEPTH} levels of nested objects and arrays; the fields are listed at /docs.`,
    );
  }
  if (problem?.kind === 'unstorable_key') throw unstorableKey(problem.path, problem.reason);
  next();
};

/** The validation body (422, spec §2.5) every body route documents, with a code of its own. */
function unstorableKey(path: JsonPath, reason: string): RequestValidationError {
  const key = String(path.at(-1));
  return new RequestValidationError(
    [{ loc: ['body', ...path.map(String)], msg: reason, type: 'value_error', input: key, ctx: {} }],
    'Rename the key named in detail (loc): object keys may not contain the NUL character nor start with "$" or ".", which the database cannot store.',
    'body_key_invalid',
  );
}

/** The parser chain of every route that takes a body. */
export function jsonBody(limit: string): RequestHandler[] {
  return [requireJsonContentType, express.json({ limit, type: JSON_TYPES }), refuseUnreadableShape];
}

/** What body-parser (and raw-body, zlib under it) attach to the errors they pass on. */
interface ParserFailure extends Error {
  type?: string;
  status?: number;
  expose?: boolean;
  limit?: number;
  charset?: string;
  encoding?: string;
}

/**
 * body-parser's errors (and any other 4xx http-errors error Express's middleware raises) as the
 * contract's answers: the caller's mistake, with a fix, never a 500. `undefined` for anything else.
 * A decompression failure carries no `type`, only the 400 that body-parser gives every failed read.
 */
export function bodyParserFailure(err: unknown, req: Request): AppError | undefined {
  const e = err as ParserFailure;
  if (!(e instanceof Error) || typeof e.status !== 'number' || e.status >= 500 || !e.expose) return undefined;
  const encoding = String(req.headers['content-encoding'] ?? 'identity').toLowerCase();
  switch (e.type) {
    case 'entity.parse.failed':
      return new AppError(400, 'malformed_json', `Malformed JSON body: ${e.message}`, SEND_JSON);
    case 'entity.too.large':
      return new AppError(
        413,
        'body_too_large',
        `Request body too large (limit ${e.limit} bytes)`,
        'Send a smaller body; no endpoint needs more than a few kilobytes.',
      );
    case 'encoding.unsupported':
      return new AppError(
        415,
        'unsupported_content_encoding',
        `Unsupported Content-Encoding: ${e.encoding ?? encoding}`,
        'Send the body uncompressed, or compressed with gzip, deflate or br.',
      );
    case 'charset.unsupported':
      return new AppError(
        415,
        'unsupported_charset',
        `Unsupported body charset: ${e.charset ?? e.message}`,
        SEND_JSON,
      );
    case 'request.aborted':
    case 'request.size.invalid':
      return new AppError(
        400,
        'body_incomplete',
        `The request body was incomplete: ${e.message}`,
        'Send the whole body, with a Content-Length that matches it.',
      );
  }
  if (!e.type && encoding !== 'identity') {
    return new AppError(
      400,
      'body_decoding_failed',
      `Could not decode the ${encoding} body: ${e.message}`,
      `Compress the body with ${encoding} as the Content-Encoding header says, or send it uncompressed without that header.`,
    );
  }
  // Another 4xx raised by Express's own middleware (e.g. a malformed URI): its status, as the caller's mistake.
  return new AppError(
    e.status,
    'bad_request',
    `Bad request: ${e.message}`,
    'Check the request against /openapi.json and send it again.',
  );
}
