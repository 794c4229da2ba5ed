import { Router, type Request } from 'express';
import type { EventRecord, MarketRecord } from '../model.js';
import type { PolymarketState } from '../state.js';
import { eventClosed, eventTotals, gammaEvent, gammaMarket } from '../wire.js';
import { bool, list, one, uint } from './params.js';
import { HttpError, jsonRoute } from './json-route.js';

// Gamma API (https://gamma-api.polymarket.com), reference §2.
//
// Error bodies follow what Gamma is reported to send (third-party captures; not in the official
// docs): 404 `{"type":"not found error","error":"id not found"}` / `"slug not found"`, 422
// `{"type":"validation error","error":"id is invalid"}` for a malformed id and
// `"order fields are not valid"` for an unknown `order`. For other malformed query values (e.g.
// `limit=abc`, `closed=maybe`) we answer 422 `"<param> is invalid"` in the same style.
//
// Lists: no implicit page size below the cap of 500 (the real default is undocumented); default
// order is by id ascending; `ascending` defaults to false when `order` is given.

const MAX_LIMIT = 500;

/** Gamma's error bodies carry a `type` beside the `error` text. */
const gammaError = (status: number, type: string, error: string) =>
  new HttpError(status, error, { type, error });
const invalid = (what: string) => gammaError(422, 'validation error', `${what} is invalid`);
const notFound = (what: 'id' | 'slug') => gammaError(404, 'not found error', `${what} not found`);

function flag(req: Request, key: string): boolean | undefined {
  const v = bool(one(req, key));
  if (v === null) throw invalid(key);
  return v;
}

function dateParam(req: Request, key: string): number | undefined {
  const v = one(req, key);
  if (v === undefined) return undefined;
  const t = Date.parse(v);
  if (Number.isNaN(t)) throw invalid(key);
  return t;
}

/** Sort + page, shared by /markets and /events. */
function page<T>(
  req: Request,
  items: T[],
  keys: Record<string, (x: T) => number>,
  id: (x: T) => number,
): T[] {
  const limit = uint(one(req, 'limit'));
  const offset = uint(one(req, 'offset'));
  if (limit === null) throw invalid('limit');
  if (offset === null) throw invalid('offset');
  const ascending = flag(req, 'ascending') ?? false;
  const order = one(req, 'order');
  const sorted = [...items].sort((a, b) => id(a) - id(b));
  if (order) {
    const fields = order.split(',').map((f) => f.trim());
    const getters = fields.map((f) => keys[f]);
    if (getters.some((g) => g === undefined)) {
      throw gammaError(422, 'validation error', 'order fields are not valid');
    }
    sorted.sort((a, b) => {
      for (const g of getters as Array<(x: T) => number>) {
        const d = g(a) - g(b);
        if (d !== 0) return ascending ? d : -d;
      }
      return 0;
    });
  }
  const start = offset ?? 0;
  return sorted.slice(start, start + Math.min(limit ?? MAX_LIMIT, MAX_LIMIT));
}

function idParam(req: Request): string {
  const id = String(req.params.id);
  if (!/^\d{1,18}$/.test(id)) throw invalid('id');
  return id;
}

export function gammaRouter(state: PolymarketState): Router {
  const r = Router();

  const marketKeys: Record<string, (m: MarketRecord) => number> = {
    id: (m) => Number(m.id),
    volume: (m) => m.volume,
    volumeNum: (m) => m.volume,
    volume24hr: (m) => m.volume24hr,
    liquidity: (m) => m.liquidity,
    liquidityNum: (m) => m.liquidity,
    startDate: (m) => m.startMs,
    endDate: (m) => m.endMs,
    createdAt: (m) => m.createdMs,
    closedTime: (m) => m.closedMs ?? 0,
  };

  const tagMatch = (req: Request, e: EventRecord): boolean => {
    const ids = list(req, 'tag_id');
    const slugs = list(req, 'tag_slug');
    return (
      (ids.length === 0 || e.tags.some((t) => ids.includes(t.id))) &&
      (slugs.length === 0 || e.tags.some((t) => slugs.includes(t.slug)))
    );
  };

  r.get(
    '/markets',
    jsonRoute((req) => {
      const ids = list(req, 'id');
      const slugs = list(req, 'slug');
      const conditions = list(req, 'condition_ids').map((c) => c.toLowerCase());
      const tokens = list(req, 'clob_token_ids');
      // The famous gotcha: without `closed`, Gamma behaves as if `closed=false` was sent.
      const closed = flag(req, 'closed') ?? false;
      const active = flag(req, 'active');
      const archived = flag(req, 'archived');
      const endMin = dateParam(req, 'end_date_min');
      const endMax = dateParam(req, 'end_date_max');
      const startMin = dateParam(req, 'start_date_min');
      const startMax = dateParam(req, 'start_date_max');
      const markets = [...state.markets.values()].filter(
        (m) =>
          (ids.length === 0 || ids.includes(m.id)) &&
          (slugs.length === 0 || slugs.includes(m.slug)) &&
          (conditions.length === 0 || conditions.includes(m.conditionId.toLowerCase())) &&
          (tokens.length === 0 || m.tokenIds.some((t) => tokens.includes(t))) &&
          m.closed === closed &&
          (active === undefined || m.active === active) &&
          (archived === undefined || m.archived === archived) &&
          (endMin === undefined || m.endMs >= endMin) &&
          (endMax === undefined || m.endMs <= endMax) &&
          (startMin === undefined || m.startMs >= startMin) &&
          (startMax === undefined || m.startMs <= startMax) &&
          tagMatch(req, state.eventOf(m)),
      );
      return page(req, markets, marketKeys, (m) => Number(m.id)).map((m) => gammaMarket(state, m));
    }),
  );

  r.get(
    '/markets/slug/:slug',
    jsonRoute((req) => {
      const m = state.marketBySlug(String(req.params.slug));
      if (!m) throw notFound('slug');
      return gammaMarket(state, m);
    }),
  );

  r.get(
    '/markets/:id/tags',
    jsonRoute((req) => {
      const m = state.markets.get(idParam(req));
      if (!m) throw notFound('id');
      return state.eventOf(m).tags;
    }),
  );

  r.get(
    '/markets/:id',
    jsonRoute((req) => {
      const m = state.markets.get(idParam(req));
      if (!m) throw notFound('id');
      return gammaMarket(state, m);
    }),
  );

  r.get(
    '/events',
    jsonRoute((req) => {
      const ids = list(req, 'id');
      const slugs = list(req, 'slug');
      const closed = flag(req, 'closed') ?? false;
      const active = flag(req, 'active');
      const archived = flag(req, 'archived');
      const events = [...state.events.values()].filter(
        (e) =>
          (ids.length === 0 || ids.includes(e.id)) &&
          (slugs.length === 0 || slugs.includes(e.slug)) &&
          eventClosed(state, e) === closed &&
          (active === undefined || active === true) &&
          (archived === undefined || archived === false) &&
          tagMatch(req, e),
      );
      const keys: Record<string, (e: EventRecord) => number> = {
        id: (e) => Number(e.id),
        volume: (e) => eventTotals(state, e).volume,
        volume24hr: (e) => eventTotals(state, e).volume24hr,
        liquidity: (e) => eventTotals(state, e).liquidity,
        startDate: (e) => e.startMs,
        endDate: (e) => e.endMs,
        createdAt: (e) => e.createdMs,
      };
      return page(req, events, keys, (e) => Number(e.id)).map((e) => gammaEvent(state, e));
    }),
  );

  r.get(
    '/events/slug/:slug',
    jsonRoute((req) => {
      const e = state.eventBySlug(String(req.params.slug));
      if (!e) throw notFound('slug');
      return gammaEvent(state, e);
    }),
  );

  r.get(
    '/events/:id/tags',
    jsonRoute((req) => {
      const e = state.events.get(idParam(req));
      if (!e) throw notFound('id');
      return e.tags;
    }),
  );

  r.get(
    '/events/:id',
    jsonRoute((req) => {
      const e = state.events.get(idParam(req));
      if (!e) throw notFound('id');
      return gammaEvent(state, e);
    }),
  );

  return r;
}
