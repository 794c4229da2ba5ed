import { Router, type Request } from 'express';
import { HttpError, jsonRoute } from '../../polymarket/routes/json-route.js';
import { one } from '../../polymarket/routes/params.js';
import { eventWire, marketWire, orderbookWire, tradeWire } from '../kalshi-wire.js';
import type { MarketRecord, MarketStatus } from '../model.js';
import type { KalshiState } from '../state.js';

// Kalshi Trade API v2 public market data under `<base>/trade-api/v2` (kalshi.md §1.2, §5.1).
// Tickers are matched exactly: a lower-case ticker is a 404, as the checklist asks (the service
// must upper-case). Markets past the historical cutoff only appear under /historical.

const kalshiError = (status: number, code: string, message: string) =>
  new HttpError(status, message, { error: { code, message, details: '' } });
const notFound = () => kalshiError(404, 'not_found', 'not found');
const badParam = (message: string) => kalshiError(400, 'invalid_parameters', message);

/** The `status` filter vocabulary of GET /markets → response statuses (kalshi.md §1.5). */
const MARKET_FILTER: Record<string, MarketStatus[]> = {
  unopened: ['initialized'],
  open: ['active'],
  paused: ['inactive'],
  closed: ['closed', 'determined', 'disputed', 'amended'],
  settled: ['finalized'],
};

function intParam(req: Request, key: string, min: number, max: number, dflt: number): number {
  const v = one(req, key);
  if (v === undefined || v === '') return dflt;
  if (!/^-?\d+$/.test(v)) throw badParam(`${key} must be an integer`);
  const n = Number(v);
  if (n < min || n > max) throw badParam(`${key} must be between ${min} and ${max}`);
  return n;
}

const tsParam = (req: Request, key: string): number | undefined => {
  const v = one(req, key);
  if (v === undefined || v === '') return undefined;
  if (!/^\d+$/.test(v)) throw badParam(`${key} must be a unix timestamp`);
  return Number(v) * 1000;
};

/** Opaque cursor: the offset of the next page; empty string on the last page. */
function page<T>(req: Request, items: T[], limit: number): { items: T[]; cursor: string } {
  const raw = one(req, 'cursor');
  let offset = 0;
  if (raw) {
    const decoded = Buffer.from(raw, 'base64url').toString('utf8');
    if (!/^o:\d+$/.test(decoded)) throw badParam('invalid cursor');
    offset = Number(decoded.slice(2));
  }
  const next = offset + limit;
  return {
    items: items.slice(offset, next),
    cursor: next < items.length ? Buffer.from(`o:${next}`).toString('base64url') : '',
  };
}

/** The `seq` a trades cursor continues below; undefined on the first page. */
function tradeCursor(raw: string | undefined): number | undefined {
  if (!raw) return undefined;
  const decoded = Buffer.from(raw, 'base64url').toString('utf8');
  if (!/^t:\d+$/.test(decoded)) throw badParam('invalid cursor');
  return Number(decoded.slice(2));
}

function statusFilter(
  req: Request,
  vocabulary: Record<string, MarketStatus[]>,
): Set<MarketStatus> | undefined {
  const v = one(req, 'status');
  if (!v) return undefined;
  const out = new Set<MarketStatus>();
  for (const s of v.split(',')) {
    const mapped = vocabulary[s.trim()];
    if (!mapped) throw badParam(`invalid status filter: ${s}`);
    for (const x of mapped) out.add(x);
  }
  return out;
}

/** An event's status for the /events filter: from its markets. */
function eventStatus(markets: MarketRecord[]): string {
  if (markets.some((m) => m.status === 'active')) return 'open';
  if (markets.length > 0 && markets.every((m) => m.status === 'initialized')) return 'unopened';
  if (markets.length > 0 && markets.every((m) => m.status === 'finalized')) return 'settled';
  return 'closed';
}

export function kalshiRouter(state: KalshiState): Router {
  const r = Router();
  const live = () => [...state.markets.values()].filter((m) => !m.historical);
  const liveMarket = (ticker: string) => {
    const m = state.markets.get(ticker);
    if (!m || m.historical) throw notFound();
    return m;
  };

  const filterMarkets = (req: Request, markets: MarketRecord[]) => {
    const statuses = statusFilter(req, MARKET_FILTER);
    const eventTicker = one(req, 'event_ticker');
    const seriesTicker = one(req, 'series_ticker');
    const tickers = one(req, 'tickers')?.split(',').filter(Boolean);
    const minClose = tsParam(req, 'min_close_ts');
    const maxClose = tsParam(req, 'max_close_ts');
    const minSettled = tsParam(req, 'min_settled_ts');
    const maxSettled = tsParam(req, 'max_settled_ts');
    return markets.filter(
      (m) =>
        (!statuses || statuses.has(m.status)) &&
        (!eventTicker || m.eventTicker === eventTicker) &&
        (!seriesTicker || m.seriesTicker === seriesTicker) &&
        (!tickers || tickers.includes(m.ticker)) &&
        (minClose === undefined || m.closeTime >= minClose) &&
        (maxClose === undefined || m.closeTime <= maxClose) &&
        (minSettled === undefined || (m.settlementTs !== null && m.settlementTs >= minSettled)) &&
        (maxSettled === undefined || (m.settlementTs !== null && m.settlementTs <= maxSettled)),
    );
  };

  r.get(
    '/markets',
    jsonRoute((req) => {
      const limit = intParam(req, 'limit', 1, 1000, 100);
      const { items, cursor } = page(req, filterMarkets(req, live()), limit);
      return { markets: items.map(marketWire), cursor };
    }),
  );

  r.get(
    '/markets/orderbooks',
    jsonRoute((req) => {
      const tickers = one(req, 'tickers')?.split(',').filter(Boolean) ?? [];
      if (tickers.length === 0) throw badParam('tickers is required');
      return {
        orderbooks: tickers.flatMap((t) => {
          const m = state.markets.get(t);
          return m && !m.historical ? [{ ticker: t, ...orderbookWire(m, 0) }] : [];
        }),
      };
    }),
  );

  // Before `/markets/:ticker`, which would take `trades` for a ticker. Newest first; the cursor
  // is the last trade served (a keyset, so trades printed between two pages shift nothing). The
  // reference is silent on the bounds: `min_ts`/`max_ts` are taken as inclusive.
  r.get(
    '/markets/trades',
    jsonRoute((req) => {
      const limit = intParam(req, 'limit', 1, 1000, 100);
      const ticker = one(req, 'ticker') || undefined;
      const minMs = tsParam(req, 'min_ts');
      const maxMs = tsParam(req, 'max_ts');
      const before = tradeCursor(one(req, 'cursor'));
      const matching = state.tape
        .newestFirst(ticker)
        .filter(
          (t) =>
            (before === undefined || t.seq < before) &&
            (minMs === undefined || t.createdMs >= minMs) &&
            (maxMs === undefined || t.createdMs < maxMs + 1000),
        );
      const served = matching.slice(0, limit);
      const last = served.at(-1);
      return {
        trades: served.map((t) => tradeWire(t, state.markets.get(t.ticker)?.wire ?? 'current')),
        cursor: last && matching.length > limit ? Buffer.from(`t:${last.seq}`).toString('base64url') : '',
      };
    }),
  );

  r.get(
    '/markets/:ticker',
    jsonRoute((req) => ({ market: marketWire(liveMarket(String(req.params.ticker))) })),
  );

  r.get(
    '/markets/:ticker/orderbook',
    jsonRoute((req) =>
      orderbookWire(liveMarket(String(req.params.ticker)), intParam(req, 'depth', -1_000, 100, 0)),
    ),
  );

  r.get(
    '/events',
    jsonRoute((req) => {
      const limit = intParam(req, 'limit', 1, 200, 200);
      const nested = one(req, 'with_nested_markets') === 'true';
      const seriesTicker = one(req, 'series_ticker');
      const status = one(req, 'status');
      if (status && !['unopened', 'open', 'closed', 'settled'].includes(status))
        throw badParam(`invalid status filter: ${status}`);
      const events = [...state.events.values()]
        .map((e) => ({ e, markets: state.marketsOf(e.eventTicker).filter((m) => !m.historical) }))
        .filter(({ e, markets }) => markets.length > 0 && (!seriesTicker || e.seriesTicker === seriesTicker))
        .filter(({ markets }) => !status || eventStatus(markets) === status);
      const { items, cursor } = page(req, events, limit);
      return { events: items.map(({ e, markets }) => eventWire(e, nested ? markets : undefined)), cursor };
    }),
  );

  r.get(
    '/events/:eventTicker',
    jsonRoute((req) => {
      const e = state.events.get(String(req.params.eventTicker));
      const markets = e ? state.marketsOf(e.eventTicker).filter((m) => !m.historical) : [];
      if (!e || markets.length === 0) throw notFound();
      const nested = one(req, 'with_nested_markets') === 'true';
      // The top-level `markets` is deprecated but still sent; the flag also fills event.markets.
      return { event: eventWire(e, nested ? markets : undefined), markets: markets.map(marketWire) };
    }),
  );

  r.get(
    '/series/:seriesTicker',
    jsonRoute((req) => {
      const s = state.series.get(String(req.params.seriesTicker));
      if (!s) throw notFound();
      return {
        series: {
          ticker: s.ticker,
          title: s.title,
          category: s.category,
          frequency: s.frequency,
          tags: [],
          settlement_sources: [],
        },
      };
    }),
  );

  r.get('/historical/cutoff', (_req, res) => {
    const cutoff = new Date(state.now() - 90 * 86_400_000).toISOString();
    res.json({ market_settled_ts: cutoff, trades_created_ts: cutoff, orders_updated_ts: cutoff });
  });

  r.get(
    '/historical/markets',
    jsonRoute((req) => {
      const limit = intParam(req, 'limit', 1, 1000, 100);
      const historical = [...state.markets.values()].filter((m) => m.historical);
      const { items, cursor } = page(req, filterMarkets(req, historical), limit);
      return { markets: items.map(marketWire), cursor };
    }),
  );

  r.get(
    '/historical/markets/:ticker',
    jsonRoute((req) => {
      const m = state.markets.get(String(req.params.ticker));
      if (!m || !m.historical) throw notFound();
      return { market: marketWire(m) };
    }),
  );

  r.use(
    (_req, res) =>
      void res.status(404).json({ error: { code: 'not_found', message: 'not found', details: '' } }),
  );
  return r;
}
