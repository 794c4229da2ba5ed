import type { IncomingHttpHeaders } from 'node:http';
import type { RequestHandler } from 'express';
import { AppError } from '../../shared/infra/errors.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const hostOf = (origin: string): string | null => {
  try {
    return new URL(origin).host;
  } catch {
    return null;
  }
};

/**
 * Refuses a state-changing request that a browser sent from another site: the operator's browser
 * adds its ambient credentials (HTTP Basic, once typed for the host; the console cookie) to such a
 * request by itself. The rule is that of Go's `http.CrossOriginProtection`: `Sec-Fetch-Site`, which
 * every current browser sends, must say `same-origin` (or `none`: typed by the user); without it, an
 * `Origin` must name this host; a request with neither comes from no browser (a script), and a
 * script's credentials are not ambient.
 */
export const refuseCrossOriginWrites: RequestHandler = (req, _res, next) => {
  if (SAFE_METHODS.has(req.method)) return next();
  refuseCrossOrigin(req.headers);
  next();
};

/**
 * The same rule for every method: an operator API route (`/api/admin/*`) is for scripts with the
 * Bearer token, and some of its reads act (a GET of the ledger audit recomputes every agent and
 * market), so another site must not make the operator's browser send one with its Basic credentials.
 */
export const refuseCrossOriginRequests: RequestHandler = (req, _res, next) => {
  refuseCrossOrigin(req.headers);
  next();
};

function refuseCrossOrigin(headers: IncomingHttpHeaders): void {
  const site = headers['sec-fetch-site'];
  const origin = headers.origin;
  const sameOrigin =
    site !== undefined
      ? site === 'same-origin' || site === 'none'
      : origin === undefined || hostOf(origin) === headers.host;
  if (sameOrigin) return;
  throw new AppError(
    403,
    'cross_origin_request',
    'An operator request from another site is refused',
    'Use the console pages themselves, or call /api/admin/* from a script with the Bearer token.',
  );
}
