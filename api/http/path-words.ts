import type { RequestHandler } from 'express';
import type { EndpointSpec } from '../endpoints/endpoint.js';

/**
 * A plain word where a market id belongs is a mistyped path (`/api/sdk/markets/importabel`), not an
 * unknown market: the route is skipped so the answer is "Not found: <method> <path>". Ids (UUIDs,
 * condition ids, tickers) always contain digits or upper case and still reach the handler.
 */
const PATH_WORD = /^[a-z][a-z_-]*$/;

/** Routes with a market id in their path: they may answer 404 for a path word, so they publish it. */
export const skipsPathWords = (spec: Pick<EndpointSpec, 'params'>): boolean =>
  !!spec.params && 'market_id' in spec.params.shape;

export const skipPathWords: RequestHandler = (req, _res, next) =>
  next(PATH_WORD.test(String(req.params.market_id ?? '')) ? 'route' : undefined);
