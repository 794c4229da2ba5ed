import { Router, type Request } from 'express';
import { bestAsk, bestBid, bookOf, bookWire, lastTradeOf, midpoint, spread } from '../book.js';
import { historyBounds, historyPoints } from '../history.js';
import { fmt, type MarketRecord } from '../model.js';
import type { PolymarketState } from '../state.js';
import { clobMarket, clobMarketInfo } from '../wire.js';
import { one, uint } from './params.js';
import { HttpError, jsonRoute } from './json-route.js';

// CLOB public market data (https://clob.polymarket.com), reference §3. Errors are
// `{"error": "<message>"}`. Texts from the reference: `Invalid token id` (400),
// `No orderbook exists for the requested token id` (404; also for closed markets, whose books are
// gone), `market not found` (404, /tick-size and the other per-market lookups), `Invalid payload`
// / `Payload exceeds the limit` (400, batch bodies). Choices where the reference is silent:
// a missing or non-numeric token id → 400 `Invalid token id`; bad `side` → 400 `Invalid side`;
// unknown tokens are left out of batch answers; /prices-history of an unknown token → 200 with
// an empty history; its parameter errors → 400 with a short message.

const MAX_BATCH = 500;
const PAGE = 500;
const NO_BOOK = 'No orderbook exists for the requested token id';
const INTERVAL_MS: Record<string, number | 'all'> = {
  '1h': 3_600_000,
  '6h': 6 * 3_600_000,
  '1d': 86_400_000,
  '1w': 7 * 86_400_000,
  '1m': 30 * 86_400_000, // one *month* on Polymarket
  max: 'all',
  all: 'all',
};

const badToken = () => new HttpError(400, 'Invalid token id');
const validToken = (t: unknown): t is string => typeof t === 'string' && /^\d{1,80}$/.test(t);

export function clobRouter(state: PolymarketState): Router {
  const r = Router();

  const token = (req: Request): string => {
    const t = one(req, 'token_id');
    if (!validToken(t)) throw badToken();
    return t;
  };
  /** A token whose market still has a live order book. */
  const liveToken = (t: string): { market: MarketRecord; index: number } => {
    const hit = state.marketByToken(t);
    if (!hit || hit.market.closed || !hit.market.enableOrderBook) throw new HttpError(404, NO_BOOK);
    return hit;
  };
  /** A known token, order book or not (metadata endpoints answer for closed markets too). */
  const knownToken = (t: string): { market: MarketRecord; index: number } => {
    const hit = state.marketByToken(t);
    if (!hit) throw new HttpError(404, 'market not found');
    return hit;
  };
  /** Batch bodies: an array of objects with a valid `token_id`. */
  const batch = (req: Request): Array<{ token_id: string; side?: unknown }> => {
    const body: unknown = req.body;
    if (!Array.isArray(body)) throw new HttpError(400, 'Invalid payload');
    if (body.length > MAX_BATCH) throw new HttpError(400, 'Payload exceeds the limit');
    for (const item of body) {
      if (
        typeof item !== 'object' ||
        item === null ||
        !validToken((item as { token_id?: unknown }).token_id)
      ) {
        throw new HttpError(400, 'Invalid payload');
      }
    }
    return body as Array<{ token_id: string; side?: unknown }>;
  };
  const sideOf = (v: unknown): 'BUY' | 'SELL' => {
    const s = typeof v === 'string' ? v.toUpperCase() : '';
    if (s !== 'BUY' && s !== 'SELL') throw new HttpError(400, 'Invalid side');
    return s;
  };
  /** BUY → best bid, SELL → best ask (verified live by third parties, reference §3). */
  const quote = (t: string, side: 'BUY' | 'SELL'): string => {
    const { market, index } = liveToken(t);
    const b = bookOf(market, index);
    const p = side === 'BUY' ? bestBid(b) : bestAsk(b);
    return fmt(p ?? 0);
  };
  const live = (t: string) => {
    const hit = state.marketByToken(t);
    return hit && !hit.market.closed && hit.market.enableOrderBook ? hit : undefined;
  };

  r.get('/ok', (_req, res) => void res.json('OK'));
  r.get('/time', (_req, res) => void res.json(Math.floor(state.now() / 1000)));
  r.get('/version', (_req, res) => void res.json({ version: 2 }));

  r.get(
    '/book',
    jsonRoute((req) => {
      const { market, index } = liveToken(token(req));
      return bookWire(market, index);
    }),
  );
  r.post(
    '/books',
    jsonRoute((req) =>
      batch(req)
        .map((i) => live(i.token_id))
        .filter((h) => h !== undefined)
        .map((h) => bookWire(h.market, h.index)),
    ),
  );

  r.get(
    '/price',
    jsonRoute((req) => {
      const t = token(req);
      return { price: quote(t, sideOf(one(req, 'side'))) };
    }),
  );
  r.post(
    '/prices',
    jsonRoute((req) => {
      const out: Record<string, Record<string, string>> = {};
      for (const item of batch(req)) {
        const side = sideOf(item.side);
        if (!live(item.token_id)) continue;
        (out[item.token_id] ??= {})[side] = quote(item.token_id, side);
      }
      return out;
    }),
  );

  r.get(
    '/midpoint',
    jsonRoute((req) => {
      const { market, index } = liveToken(token(req));
      return { mid: fmt(midpoint(bookOf(market, index)) ?? 0) };
    }),
  );
  r.post(
    '/midpoints',
    jsonRoute((req) => {
      const out: Record<string, string> = {};
      for (const item of batch(req)) {
        const h = live(item.token_id);
        if (h) out[item.token_id] = fmt(midpoint(bookOf(h.market, h.index)) ?? 0);
      }
      return out;
    }),
  );

  r.get(
    '/spread',
    jsonRoute((req) => {
      const { market, index } = liveToken(token(req));
      return { spread: fmt(spread(bookOf(market, index)) ?? 0) };
    }),
  );
  r.post(
    '/spreads',
    jsonRoute((req) => {
      const out: Record<string, string> = {};
      for (const item of batch(req)) {
        const h = live(item.token_id);
        if (h) out[item.token_id] = fmt(spread(bookOf(h.market, h.index)) ?? 0);
      }
      return out;
    }),
  );

  r.get(
    '/last-trade-price',
    jsonRoute((req) => {
      const { market, index } = knownToken(token(req));
      const lt = lastTradeOf(market, index);
      return { price: fmt(lt.price), side: lt.side };
    }),
  );
  r.post(
    '/last-trades-prices',
    jsonRoute((req) =>
      batch(req).flatMap((item) => {
        const h = state.marketByToken(item.token_id);
        if (!h) return [];
        const lt = lastTradeOf(h.market, h.index);
        return [{ token_id: item.token_id, price: fmt(lt.price), side: lt.side }];
      }),
    ),
  );

  r.get(
    '/tick-size',
    jsonRoute((req) => ({ minimum_tick_size: knownToken(token(req)).market.tick })),
  );
  r.get(
    '/neg-risk',
    jsonRoute((req) => ({ neg_risk: knownToken(token(req)).market.negRisk })),
  );
  r.get(
    '/fee-rate',
    jsonRoute((req) => ({ base_fee: knownToken(token(req)).market.takerBaseFee })),
  );

  r.get(
    '/prices-history',
    jsonRoute((req) => {
      const t = one(req, 'market');
      if (!t) throw new HttpError(400, 'market is required');
      const interval = one(req, 'interval');
      const startTs = uint(one(req, 'startTs'));
      const endTs = uint(one(req, 'endTs'));
      const fidelity = uint(one(req, 'fidelity')) ?? 1; // bucket minutes
      if (startTs === null || endTs === null || fidelity === null || fidelity < 1) {
        throw new HttpError(400, 'invalid filters');
      }
      if (interval === undefined && (startTs === undefined || endTs === undefined)) {
        throw new HttpError(400, 'interval or startTs and endTs are required');
      }
      const span = interval === undefined ? undefined : INTERVAL_MS[interval];
      if (interval !== undefined && span === undefined) throw new HttpError(400, 'invalid interval');
      const hit = validToken(t) ? state.marketByToken(t) : undefined;
      if (!hit) return { history: [] };
      const now = state.now();
      let from: number;
      let to: number;
      if (startTs !== undefined && endTs !== undefined) {
        from = startTs * 1000;
        to = endTs * 1000;
      } else {
        to = now;
        from = span === 'all' ? historyBounds(hit.market, now).fromMs : now - (span as number);
      }
      return { history: historyPoints(hit.market, hit.index, from, to, fidelity * 60_000, now) };
    }),
  );

  // Cursor-paginated list of all CLOB markets: cursors are base64 offsets, `MA==` = start,
  // `LTE=` = end (reference §3, §5.3).
  r.get(
    '/markets',
    jsonRoute((req) => {
      const cursor = one(req, 'next_cursor') ?? 'MA==';
      if (cursor === 'LTE=') return { limit: PAGE, count: 0, next_cursor: 'LTE=', data: [] };
      const offset = Number(Buffer.from(cursor, 'base64').toString('utf8'));
      if (!Number.isInteger(offset) || offset < 0) throw new HttpError(400, 'invalid next_cursor');
      const all = [...state.markets.values()].sort((a, b) => Number(a.id) - Number(b.id));
      const data = all.slice(offset, offset + PAGE).map((m) => clobMarket(state, m));
      const next =
        offset + PAGE >= all.length ? 'LTE=' : Buffer.from(String(offset + PAGE)).toString('base64');
      return { limit: PAGE, count: data.length, next_cursor: next, data };
    }),
  );

  r.get(
    '/markets/:conditionId',
    jsonRoute((req) => {
      const m = state.marketByConditionId(String(req.params.conditionId));
      if (!m) throw new HttpError(404, 'market not found');
      return clobMarket(state, m);
    }),
  );
  r.get(
    '/clob-markets/:conditionId',
    jsonRoute((req) => {
      const m = state.marketByConditionId(String(req.params.conditionId));
      if (!m) throw new HttpError(404, 'market not found');
      return clobMarketInfo(m);
    }),
  );
  r.get(
    '/markets-by-token/:tokenId',
    jsonRoute((req) => {
      const t = String(req.params.tokenId);
      if (!validToken(t)) throw badToken();
      const { market } = knownToken(t);
      return {
        condition_id: market.conditionId,
        primary_token_id: market.tokenIds[0],
        secondary_token_id: market.tokenIds[1],
      };
    }),
  );

  return r;
}
