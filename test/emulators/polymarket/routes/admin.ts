import express, { Router, type Request } from 'express';
import { isAddress } from 'ethers';
import { FAULT_MODES } from '../control.js';
import { TAGS } from '../catalogue.js';
import type { FaultMode, MarketRecord, Resolution } from '../model.js';
import type { PolymarketState } from '../state.js';
import { crowdWallet } from '../tape-prints.js';
import { gammaMarket } from '../wire.js';
import { positionView } from './data.js';
import { HttpError, jsonRoute } from './json-route.js';

// Test control plane under `/__admin` (JSON in, JSON out, errors `{"error": ...}`). Not part of
// any real Polymarket API. Markets are addressed by condition id; a market slug works as well.

const body = (req: Request): Record<string, unknown> =>
  typeof req.body === 'object' && req.body !== null && !Array.isArray(req.body)
    ? (req.body as Record<string, unknown>)
    : {};

const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

export function adminRouter(state: PolymarketState): Router {
  const r = Router();
  r.use(express.json());

  const market = (req: Request): MarketRecord => {
    const key = String(req.params.conditionId);
    const m = state.marketByConditionId(key) ?? state.marketBySlug(key);
    if (!m) throw new HttpError(404, `unknown market ${key}`);
    return m;
  };

  r.post(
    '/markets/:conditionId/price',
    jsonRoute((req) => {
      const m = market(req);
      const yes = body(req).yes;
      if (!finite(yes) || yes <= 0 || yes >= 1) throw new HttpError(400, '"yes" must be a number in (0, 1)');
      if (m.closed) throw new HttpError(409, 'market is closed');
      state.setPrice(m, yes);
      return gammaMarket(state, m);
    }),
  );

  // A trade of `wallet` (the taker) against `maker` (default: one of the crowd) on outcome
  // `outcome_index` (default 0) at `price` (default the outcome's price): printed on the public
  // tape and put on the chain as the exchange's fill events, as the crowd's trades are. Balances do
  // not move. {"wallet": "0x…", "side": "BUY", "shares": 10, "price"?: 0.5, "outcome_index"?: 0, "maker"?: "0x…"}
  r.post(
    '/markets/:conditionId/fills',
    jsonRoute((req) => {
      const m = market(req);
      const b = body(req);
      const wallet = (name: string, v: unknown) => {
        if (typeof v !== 'string' || !isAddress(v)) throw new HttpError(400, `"${name}" must be an address`);
        return v.toLowerCase();
      };
      const side = String(b.side ?? '').toUpperCase();
      if (side !== 'BUY' && side !== 'SELL') throw new HttpError(400, '"side" must be "BUY" or "SELL"');
      const outcomeIndex = b.outcome_index ?? 0;
      if (outcomeIndex !== 0 && outcomeIndex !== 1)
        throw new HttpError(400, '"outcome_index" must be 0 or 1');
      if (!finite(b.shares) || b.shares <= 0) throw new HttpError(400, '"shares" must be a number > 0');
      const own = outcomeIndex === 0 ? m.price : 1 - m.price;
      const price = b.price === undefined ? Number(own.toFixed(6)) : b.price;
      if (!finite(price) || price <= 0 || price >= 1)
        throw new HttpError(400, '"price" must be a number in (0, 1)');
      if (m.closed) throw new HttpError(409, 'market is closed');
      const fill = state.printFill(m, {
        outcomeIndex,
        taker: wallet('wallet', b.wallet),
        maker: b.maker === undefined ? crowdWallet(0) : wallet('maker', b.maker),
        side,
        shares: b.shares,
        price,
      });
      return {
        transaction_hash: fill.transactionHash,
        token_id: fill.tokenId,
        taker: fill.taker,
        makers: fill.makers,
      };
    }),
  );

  r.post(
    '/markets/:conditionId/resolve',
    jsonRoute((req) => {
      const m = market(req);
      const outcome = String(body(req).outcome ?? '').toLowerCase();
      if (!['yes', 'no', '50-50'].includes(outcome))
        throw new HttpError(400, '"outcome" must be "yes", "no" or "50-50"');
      if (m.resolution) throw new HttpError(409, 'market is already resolved');
      state.resolve(m, outcome as Resolution);
      return gammaMarket(state, m);
    }),
  );

  r.post(
    '/markets/:conditionId/close',
    jsonRoute((req) => {
      const m = market(req);
      state.close(m);
      return gammaMarket(state, m);
    }),
  );

  r.post(
    '/events',
    jsonRoute((req) => {
      const b = body(req);
      if (typeof b.title !== 'string' || b.title.trim() === '')
        throw new HttpError(400, '"title" is required');
      const outcomes = b.outcomes;
      if (
        outcomes !== undefined &&
        (!Array.isArray(outcomes) ||
          outcomes.length < 2 ||
          !outcomes.every((o) => typeof o === 'string' && o))
      ) {
        throw new HttpError(400, '"outcomes" must be an array of at least 2 non-empty strings');
      }
      const prices = b.prices;
      if (
        prices !== undefined &&
        (!Array.isArray(prices) || !prices.every((p) => finite(p) && p > 0 && p < 1))
      ) {
        throw new HttpError(400, '"prices" must be numbers in (0, 1)');
      }
      const tags = b.tags;
      if (
        tags !== undefined &&
        (!Array.isArray(tags) || !tags.every((t) => typeof t === 'string' && t in TAGS))
      )
        throw new HttpError(400, `"tags" must be names among ${Object.keys(TAGS).join(', ')}`);
      const { event, markets } = state.createEvent({
        title: b.title,
        tags: tags as (keyof typeof TAGS)[] | undefined,
        outcomes: outcomes as string[] | undefined,
        slug: typeof b.slug === 'string' ? b.slug : undefined,
        negRisk: typeof b.neg_risk === 'boolean' ? b.neg_risk : undefined,
        prices: prices as number[] | undefined,
        tick: finite(b.tick_size) ? b.tick_size : undefined,
        endInDays: finite(b.end_in_days) ? b.end_in_days : undefined,
      });
      return {
        event_id: event.id,
        event_slug: event.slug,
        neg_risk: event.negRisk,
        neg_risk_market_id: event.negRiskMarketId,
        markets: markets.map((m) => ({
          id: m.id,
          slug: m.slug,
          question: m.question,
          condition_id: m.conditionId,
          outcomes: m.outcomes,
          token_ids: m.tokenIds,
          group_item_title: m.groupItemTitle,
          price: m.price,
        })),
      };
    }),
  );

  r.post(
    '/positions',
    jsonRoute((req) => {
      const b = body(req);
      const user = b.user;
      const token = b.token_id;
      if (typeof user !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(user))
        throw new HttpError(400, '"user" must be an address');
      if (typeof token !== 'string' || !state.marketByToken(token))
        throw new HttpError(404, 'unknown token_id');
      const size = b.size;
      const avgPrice = b.avgPrice ?? b.avg_price ?? 0;
      if (!finite(size) || size < 0) throw new HttpError(400, '"size" must be a number ≥ 0');
      if (!finite(avgPrice) || avgPrice < 0 || avgPrice > 1)
        throw new HttpError(400, '"avgPrice" must be in [0, 1]');
      state.seedPosition(user, token, size, avgPrice);
      return size === 0
        ? { removed: true }
        : positionView(state, user.toLowerCase(), token, { size, avgPrice });
    }),
  );

  r.get('/faults', (_req, res) => void res.json(state.faults));
  r.post(
    '/faults',
    jsonRoute((req) => {
      const b = body(req);
      const mode = String(b.mode) as FaultMode;
      if (!FAULT_MODES.includes(mode))
        throw new HttpError(400, `"mode" must be one of ${FAULT_MODES.join(', ')}`);
      const count = b.count;
      if (count !== undefined && count !== null && (!Number.isInteger(count) || (count as number) < 1)) {
        throw new HttpError(400, '"count" must be a positive integer');
      }
      if (
        b.path_prefix !== undefined &&
        (typeof b.path_prefix !== 'string' || !b.path_prefix.startsWith('/'))
      ) {
        throw new HttpError(400, '"path_prefix" must start with "/" (e.g. "/clob" or "/gamma/markets")');
      }
      state.faults.push({
        mode,
        remaining: typeof count === 'number' ? count : null,
        pathPrefix: b.path_prefix as string | undefined,
        hangMs: finite(b.hang_ms)
          ? b.hang_ms
          : finite(b.delay_ms)
            ? b.delay_ms
            : mode === 'slow'
              ? 2_000
              : 60_000,
      });
      return state.faults;
    }),
  );
  r.delete('/faults', (_req, res) => {
    state.faults = [];
    res.json([]);
  });

  const clock = () => ({ now_ms: state.now(), offset_ms: state.clockOffsetMs });
  r.get('/clock', (_req, res) => void res.json(clock()));
  r.post(
    '/clock',
    jsonRoute((req) => {
      const advance = body(req).advance_ms;
      if (!finite(advance)) throw new HttpError(400, '"advance_ms" must be a number');
      state.clockOffsetMs += advance;
      state.sync();
      return clock();
    }),
  );

  r.get('/requests', (_req, res) => void res.json(state.requests));
  r.delete('/requests', (_req, res) => {
    state.requests = [];
    res.json([]);
  });

  r.post('/reset', (_req, res) => {
    state.reset();
    res.json({ ok: true, ...clock() });
  });

  // What is in the catalogue right now (slugs, ids, tokens): a convenience for test writers.
  r.get('/catalogue', (_req, res) => {
    state.sync();
    res.json(
      [...state.events.values()].map((e) => ({
        event_id: e.id,
        event_slug: e.slug,
        title: e.title,
        neg_risk: e.negRisk,
        markets: state.marketsOf(e).map((m) => ({
          id: m.id,
          slug: m.slug,
          condition_id: m.conditionId,
          token_ids: m.tokenIds,
          outcomes: m.outcomes,
          group_item_title: m.groupItemTitle,
          price: m.price,
          tick: m.tick,
          closed: m.closed,
          accepting_orders: m.acceptingOrders,
          resolution: m.resolution ?? null,
        })),
      })),
    );
  });

  return r;
}
