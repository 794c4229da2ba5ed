import type { NextFunction, Request, Response } from 'express';
import type { FaultMode, FaultRule } from './model.js';
import type { PolymarketState } from './state.js';
import { hangingRequests } from '../hanging-requests.js';

// Cross-cutting behaviour of the non-admin surface: every request is logged (so tests can assert
// "nothing was fetched"), then may be failed by an armed fault rule, then clock-driven state is
// brought up to date before the route runs.

export const FAULT_MODES: FaultMode[] = ['500', '429', 'timeout', 'malformed', 'truncated', 'slow'];

/**
 * The log keeps at most this many requests, the newest: a service left running against the
 * emulator polls it for ever (the fill feed asks the chain for its head four times a second), and
 * tests read far fewer between two resets.
 */
const REQUESTS_KEPT = 100_000;

export function requestLog(state: PolymarketState) {
  return (req: Request, _res: Response, next: NextFunction) => {
    state.requests.push({ method: req.method, path: req.path, query: { ...req.query }, at: state.now() });
    // Trimmed by halves, so that keeping the bound costs a copy per 50,000 requests, not per request.
    if (state.requests.length > REQUESTS_KEPT) state.requests = state.requests.slice(-REQUESTS_KEPT / 2);
    next();
  };
}

function takeFault(state: PolymarketState, path: string): FaultRule | undefined {
  const rule = state.faults.find(
    (f) => (f.pathPrefix === undefined || path.startsWith(f.pathPrefix)) && f.remaining !== 0,
  );
  if (rule && rule.remaining !== null && --rule.remaining === 0) {
    // Exhausted rules disappear, so GET /__admin/faults shows only what is still armed.
    state.faults = state.faults.filter((f) => f !== rule);
  }
  return rule;
}

/**
 * Fails requests matching an armed rule. Returns the middleware and a `release` that drops the
 * connections a `timeout` fault left hanging (called on shutdown).
 */
export function faultInjector(state: PolymarketState) {
  const hanging = hangingRequests();
  const middleware = (req: Request, res: Response, next: NextFunction) => {
    const rule = takeFault(state, req.path);
    if (!rule) return next();
    const gamma = req.path.startsWith('/gamma');
    switch (rule.mode) {
      case 'slow':
        // Answer normally, hangMs late (a slow venue rather than a dead one).
        hanging.slow(res, rule.hangMs, next);
        return;
      case '500':
        // Gamma's real 500 body (third-party capture); the CLOB uses `{"error": ...}`.
        res
          .status(500)
          .json(
            gamma
              ? { type: 'internal error', error: 'cannot get the information' }
              : { error: 'Internal Server Error' },
          );
        return;
      case '429':
        res.status(429).set('Retry-After', '1').json({ error: 'Too Many Requests' });
        return;
      case 'malformed':
        // Valid JSON of the wrong shape: an object where an array/book/price is expected.
        res.status(200).json({ unexpected: true });
        return;
      case 'truncated':
        res.status(200).type('application/json').send('[{"id":"540817","question":"Will');
        return;
      case 'timeout':
        // Never answer; after hangMs drop the connection (clients should have timed out already).
        hanging.timeout(res, rule.hangMs);
        return;
    }
  };
  return { middleware, release: hanging.release };
}

export function syncClock(state: PolymarketState) {
  return (_req: Request, _res: Response, next: NextFunction) => {
    state.sync();
    next();
  };
}
