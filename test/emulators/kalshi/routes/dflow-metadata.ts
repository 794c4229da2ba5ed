import express, { Router, type Request } from 'express';
import { HttpError, jsonRoute } from '../../polymarket/routes/json-route.js';
import { one } from '../../polymarket/routes/params.js';
import { dflowEvent, dflowMarket } from '../dflow-wire.js';
import type { KalshiState } from '../state.js';

// DFlow's prediction-market metadata API under `<base>/dflow-metadata/api/v1` (kalshi.md §2.2):
// ticker ↔ outcome mints, the same status/result as the Kalshi side, batch lookups and the
// outcome-mint filter a positions view uses.

const notFound = (what: string) =>
  new HttpError(404, `${what} not found`, { code: 'not_found', msg: `${what} not found` });
const bad = (msg: string) => new HttpError(400, msg, { code: 'invalid_request', msg });

const bodyOf = (req: Request): Record<string, unknown> =>
  typeof req.body === 'object' && req.body !== null && !Array.isArray(req.body)
    ? (req.body as Record<string, unknown>)
    : {};
const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];

export function dflowMetadataRouter(state: KalshiState): Router {
  const r = Router();
  r.use(express.json());

  const byMint = (mint: string) => {
    const what = state.mints.get(mint);
    return what ? state.markets.get(what.ticker) : undefined;
  };

  r.get(
    '/api/v1/market/by-mint/:mint',
    jsonRoute((req) => {
      const m = byMint(String(req.params.mint));
      if (!m) throw notFound('Market');
      return dflowMarket(m);
    }),
  );

  r.get(
    '/api/v1/market/:ticker',
    jsonRoute((req) => {
      const m = state.markets.get(String(req.params.ticker));
      if (!m) throw notFound('Market');
      return dflowMarket(m);
    }),
  );

  r.post(
    '/api/v1/markets/batch',
    jsonRoute((req) => {
      const b = bodyOf(req);
      const tickers = strings(b.tickers);
      const mints = strings(b.mints);
      if (tickers.length + mints.length > 100) throw bad('At most 100 tickers and mints combined');
      const found = new Map<string, ReturnType<typeof dflowMarket>>();
      for (const t of tickers) {
        const m = state.markets.get(t);
        if (m) found.set(m.ticker, dflowMarket(m));
      }
      for (const mint of mints) {
        const m = byMint(mint);
        if (m) found.set(m.ticker, dflowMarket(m));
      }
      // Unknown ids are dropped silently.
      return { markets: [...found.values()] };
    }),
  );

  r.post(
    '/api/v1/filter_outcome_mints',
    jsonRoute((req) => {
      const addresses = strings(bodyOf(req).addresses);
      if (addresses.length > 200) throw bad('At most 200 addresses');
      return {
        outcomeMints: addresses.filter((a) => {
          const w = state.mints.get(a);
          return w !== undefined && !('ledger' in w);
        }),
      };
    }),
  );

  r.get(
    '/api/v1/markets',
    jsonRoute((req) => {
      const limit = Number(one(req, 'limit') ?? 100);
      if (!Number.isInteger(limit) || limit < 1 || limit >= 256) throw bad('limit must be between 1 and 255');
      const offset = Number(one(req, 'cursor') ?? 0);
      const status = one(req, 'status');
      const initialized = one(req, 'isInitialized');
      const all = [...state.markets.values()].filter(
        (m) =>
          (!status || m.status === status) &&
          (initialized === undefined || String(m.dflowInitialized) === initialized),
      );
      const items = all.slice(offset, offset + limit);
      return { markets: items.map(dflowMarket), cursor: offset + limit < all.length ? offset + limit : null };
    }),
  );

  r.get(
    '/api/v1/event/:eventTicker',
    jsonRoute((req) => {
      const e = state.events.get(String(req.params.eventTicker));
      if (!e) throw notFound('Event');
      const nested = one(req, 'withNestedMarkets') === 'true';
      return dflowEvent(e, nested ? state.marketsOf(e.eventTicker) : undefined);
    }),
  );

  r.use((_req, res) => void res.status(404).json({ code: 'not_found', msg: 'Not found' }));
  return r;
}
