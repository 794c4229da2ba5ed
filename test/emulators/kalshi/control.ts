import type { NextFunction, Request, Response } from 'express';
import { RPC_FAULT_MODES, type FaultMode, type FaultRule } from './model.js';
import type { KalshiState } from './state.js';
import { hangingRequests } from '../hanging-requests.js';

// Cross-cutting behaviour of the non-admin surface: every request is logged (so tests can assert
// what was fetched), may be failed by an armed fault rule, and clock-driven state (block height,
// order progression) is brought up to date before the route runs.

export function requestLog(state: KalshiState) {
  return (req: Request, _res: Response, next: NextFunction) => {
    state.requests.push({ method: req.method, path: req.path, query: { ...req.query }, at: state.now() });
    next();
  };
}

/** The first armed rule of one of `modes` matching the path, consumed (and counted). */
export function takeFault(
  state: KalshiState,
  path: string,
  modes: readonly FaultMode[],
): FaultRule | undefined {
  const rule = state.faults.find(
    (f) =>
      modes.includes(f.mode) &&
      (f.pathPrefix === undefined || path.startsWith(f.pathPrefix)) &&
      f.remaining !== 0,
  );
  if (!rule) return undefined;
  state.faultsServed[rule.mode] = (state.faultsServed[rule.mode] ?? 0) + 1;
  // Exhausted rules disappear, so GET /__admin/faults shows only what is still armed.
  if (rule.remaining !== null && --rule.remaining === 0)
    state.faults = state.faults.filter((f) => f !== rule);
  return rule;
}

const HTTP_MODES: FaultMode[] = ['500', '429', '503', 'timeout', 'slow'];

/** The body each upstream answers a failure with (Kalshi's error envelope, DFlow's `{code,msg}`). */
function failureBody(path: string, status: 429 | 500 | 503): unknown {
  if (path.startsWith('/trade-api')) {
    const code = { 429: 'too_many_requests', 500: 'internal_server_error', 503: 'service_unavailable' }[
      status
    ];
    return { error: { code, message: code.replace(/_/g, ' '), details: '' } };
  }
  if (path.startsWith('/dflow-trade')) {
    if (status === 429) return { code: 'rate_limited', msg: 'Too many requests' };
    if (status === 503) return { code: 'amm_map_lagging', msg: 'AMM map is lagging behind the chain' };
    return { code: 'failed_to_compute_route', msg: 'Failed to compute route' };
  }
  if (path.startsWith('/solana') && status === 429)
    return {
      jsonrpc: '2.0',
      error: { code: 429, message: 'Too many requests for a specific RPC call' },
      id: null,
    };
  return {
    error: { 429: 'Too Many Requests', 500: 'Internal Server Error', 503: 'Service Unavailable' }[status],
  };
}

export function faultInjector(state: KalshiState) {
  const hanging = hangingRequests();
  const middleware = (req: Request, res: Response, next: NextFunction) => {
    const rule = takeFault(state, req.path, HTTP_MODES);
    if (!rule) return next();
    switch (rule.mode) {
      case 'slow':
        hanging.slow(res, rule.hangMs, next);
        return;
      case 'timeout':
        hanging.timeout(res, rule.hangMs);
        return;
      case '429':
        res.status(429).set('Retry-After', '1').json(failureBody(req.path, 429));
        return;
      default:
        res.status(Number(rule.mode)).json(failureBody(req.path, Number(rule.mode) as 500 | 503));
    }
  };
  return { middleware, release: hanging.release };
}

export const isRpcFault = (mode: FaultMode) => RPC_FAULT_MODES.includes(mode);

export function syncClock(state: KalshiState) {
  return (_req: Request, _res: Response, next: NextFunction) => {
    state.sync();
    next();
  };
}
