import { Router, type Request } from 'express';
import { clean, isoDay, type Holding, type MarketRecord } from '../model.js';
import type { TapeFill, TapeParty } from '../public-tape.js';
import { traderProfile } from '../tape-prints.js';
import type { PolymarketState } from '../state.js';
import { tokenPrice } from '../wire.js';
import { bool, one, uint } from './params.js';
import { HttpError, jsonRoute } from './json-route.js';

// Data API (https://data-api.polymarket.com), reference §7: positions derived from the wallet
// ledger (funded through the admin API or filled on the emulated CLOB), entry prices and the
// current market prices; public trades from the tape (public-tape.ts). camelCase, numbers are numbers.
// Choices where the reference is silent: a missing `user` (positions, value) → 400
// `{"error":"required query param 'user' not provided"}`, a malformed one → 400
// `{"error":"invalid user address"}` (the real texts are undocumented); positions' `limit` above
// 500 is clamped to 500; `redeemable`/`mergeable` filter by equality when sent. `/trades` refuses
// a limit or offset above 10,000 with a 400, as the real API does.

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const SORT_KEYS = [
  'CURRENT',
  'INITIAL',
  'TOKENS',
  'CASHPNL',
  'PERCENTPNL',
  'TITLE',
  'RESOLVING',
  'PRICE',
  'AVGPRICE',
];

function userParam(req: Request): string {
  const user = one(req, 'user');
  if (!user) throw new HttpError(400, "required query param 'user' not provided");
  if (!ADDRESS.test(user)) throw new HttpError(400, 'invalid user address');
  return user.toLowerCase();
}

const csv = (v: string | undefined) => (v ? v.split(',').map((s) => s.trim().toLowerCase()) : []);

export type Position = NonNullable<ReturnType<typeof positionView>>;

export function positionView(state: PolymarketState, user: string, token: string, h: Holding) {
  const hit = state.marketByToken(token);
  if (!hit) return undefined;
  const { market: m, index } = hit;
  const e = state.eventOf(m);
  const other = 1 - index;
  const curPrice = tokenPrice(m, index);
  const initialValue = h.size * h.avgPrice;
  const currentValue = h.size * curPrice;
  const cashPnl = currentValue - initialValue;
  const oppositeHeld = state.ledger.tokenBalance(user, m.tokenIds[other] as string) > 0n;
  return {
    proxyWallet: user,
    asset: token,
    conditionId: m.conditionId,
    size: clean(h.size),
    avgPrice: clean(h.avgPrice),
    initialValue: clean(initialValue),
    currentValue: clean(currentValue),
    cashPnl: clean(cashPnl),
    percentPnl: initialValue > 0 ? clean((cashPnl / initialValue) * 100) : 0,
    totalBought: clean(h.totalBought ?? h.size),
    realizedPnl: clean(h.realizedPnl ?? 0),
    percentRealizedPnl: initialValue > 0 ? clean(((h.realizedPnl ?? 0) / initialValue) * 100) : 0,
    curPrice: clean(curPrice),
    redeemable: m.resolution !== undefined,
    mergeable: !m.closed && oppositeHeld,
    title: m.question,
    slug: m.slug,
    icon: m.image,
    eventId: e.id,
    eventSlug: e.slug,
    outcome: m.outcomes[index] as string,
    outcomeIndex: index,
    oppositeOutcome: m.outcomes[other] as string,
    oppositeAsset: m.tokenIds[other] as string,
    endDate: isoDay(m.endMs),
    negativeRisk: m.negRisk,
  };
}

/** The Data API's paging bounds for `/trades` (its OpenAPI: limit and offset both 0–10,000). */
const TRADES_MAX_LIMIT = 10_000;
const TRADES_MAX_OFFSET = 10_000;

function tradesQuery(req: Request) {
  const rawUser = one(req, 'user');
  const user = rawUser === undefined ? undefined : userParam(req);
  const markets = csv(one(req, 'market'));
  const eventIds = csv(one(req, 'eventId'));
  if (markets.length > 0 && eventIds.length > 0)
    throw new HttpError(400, 'market and eventId are mutually exclusive');
  const takerOnly = bool(one(req, 'takerOnly'));
  const side = one(req, 'side')?.toUpperCase();
  const limit = uint(one(req, 'limit'));
  const offset = uint(one(req, 'offset'));
  if (takerOnly === null || (side && side !== 'BUY' && side !== 'SELL'))
    throw new HttpError(400, 'invalid filters');
  if (
    limit === null ||
    offset === null ||
    (limit ?? 0) > TRADES_MAX_LIMIT ||
    (offset ?? 0) > TRADES_MAX_OFFSET
  )
    throw new HttpError(400, `limit and offset must be integers between 0 and ${TRADES_MAX_OFFSET}`);
  const filterType = one(req, 'filterType')?.toUpperCase();
  const filterAmount = one(req, 'filterAmount');
  const amount = filterAmount === undefined ? undefined : Number(filterAmount);
  if (
    (filterType === undefined) !== (filterAmount === undefined) ||
    (filterType !== undefined && filterType !== 'CASH' && filterType !== 'TOKENS') ||
    (amount !== undefined && !(Number.isFinite(amount) && amount >= 0))
  )
    throw new HttpError(400, 'filterType (CASH or TOKENS) and filterAmount go together');
  return {
    user,
    markets,
    eventIds,
    takerOnly: takerOnly ?? true,
    side,
    limit: limit ?? 100,
    offset: offset ?? 0,
    /** `filterAmount` is a floor on cash (shares × price) or on tokens. */
    bigEnough: (p: TapeParty) =>
      amount === undefined || (filterType === 'CASH' ? p.shares * p.price : p.shares) >= amount,
  };
}

/** One row of `/trades`: the fill from one party's side, with the market and the party's profile. */
function tradeRow(state: PolymarketState, fill: TapeFill, p: TapeParty, m: MarketRecord) {
  return {
    proxyWallet: p.wallet,
    side: p.side,
    asset: fill.tokenId,
    conditionId: m.conditionId,
    size: clean(p.shares),
    price: clean(p.price),
    timestamp: fill.timestampSec,
    title: m.question,
    slug: m.slug,
    icon: m.image,
    eventSlug: state.eventOf(m).slug,
    outcome: m.outcomes[fill.outcomeIndex] as string,
    outcomeIndex: fill.outcomeIndex,
    ...traderProfile(p.wallet),
    transactionHash: fill.transactionHash,
  };
}

export function dataRouter(state: PolymarketState): Router {
  const r = Router();

  const positionsOf = (user: string) =>
    [...state.holdings(user).entries()]
      .map(([token, h]) => positionView(state, user, token, h))
      .filter((p) => p !== undefined);

  r.get(
    '/positions',
    jsonRoute((req) => {
      const user = userParam(req);
      const markets = csv(one(req, 'market'));
      const eventIds = csv(one(req, 'eventId'));
      if (markets.length > 0 && eventIds.length > 0)
        throw new HttpError(400, 'market and eventId are mutually exclusive');
      const thresholdRaw = one(req, 'sizeThreshold');
      const threshold = thresholdRaw === undefined ? 1 : Number(thresholdRaw);
      if (!Number.isFinite(threshold) || threshold < 0) throw new HttpError(400, 'invalid sizeThreshold');
      const redeemable = bool(one(req, 'redeemable'));
      const mergeable = bool(one(req, 'mergeable'));
      if (redeemable === null || mergeable === null) throw new HttpError(400, 'invalid boolean filter');
      const limit = uint(one(req, 'limit'));
      const offset = uint(one(req, 'offset'));
      if (limit === null || offset === null) throw new HttpError(400, 'invalid pagination');
      const sortBy = (one(req, 'sortBy') ?? 'TOKENS').toUpperCase();
      const direction = (one(req, 'sortDirection') ?? 'DESC').toUpperCase();
      if (!SORT_KEYS.includes(sortBy)) throw new HttpError(400, 'invalid sortBy');
      if (direction !== 'ASC' && direction !== 'DESC') throw new HttpError(400, 'invalid sortDirection');
      const title = one(req, 'title')?.toLowerCase();

      const rows = positionsOf(user).filter(
        (p) =>
          p.size >= threshold &&
          (markets.length === 0 || markets.includes(p.conditionId.toLowerCase())) &&
          (eventIds.length === 0 || eventIds.includes(p.eventId)) &&
          (redeemable === undefined || p.redeemable === redeemable) &&
          (mergeable === undefined || p.mergeable === mergeable) &&
          (title === undefined || p.title.toLowerCase().includes(title)),
      );
      const key = (p: (typeof rows)[number]): number | string =>
        ({
          CURRENT: p.currentValue,
          INITIAL: p.initialValue,
          TOKENS: p.size,
          CASHPNL: p.cashPnl,
          PERCENTPNL: p.percentPnl,
          TITLE: p.title,
          RESOLVING: p.endDate,
          PRICE: p.curPrice,
          AVGPRICE: p.avgPrice,
        })[sortBy] as number | string;
      rows.sort((a, b) => {
        const ka = key(a);
        const kb = key(b);
        const d = typeof ka === 'string' ? ka.localeCompare(String(kb)) : ka - (kb as number);
        return direction === 'ASC' ? d : -d;
      });
      const start = offset ?? 0;
      return rows.slice(start, start + Math.min(limit ?? 100, 500));
    }),
  );

  // Public trades, newest first (§7): of a user, of markets or events, or the whole venue. Like the
  // real API each fill shows once, on its taker's side, unless `takerOnly=false` adds the makers'
  // rows; fills of CLOB trades that FAILED never happened on chain and are not shown.
  r.get(
    '/trades',
    jsonRoute((req) => {
      const q = tradesQuery(req);
      const rows = state.tape.newestFirst(q.markets).flatMap((fill) => {
        if (fill.clobTradeId && state.exchange.trades.get(fill.clobTradeId)?.status === 'FAILED') return [];
        const m = state.marketByConditionId(fill.conditionId);
        if (!m || (q.eventIds.length > 0 && !q.eventIds.includes(m.eventId))) return [];
        const parties = q.takerOnly ? [fill.taker] : [fill.taker, ...fill.makers];
        return parties
          .filter((p) => (!q.user || p.wallet === q.user) && (!q.side || p.side === q.side) && q.bigEnough(p))
          .map((p) => tradeRow(state, fill, p, m));
      });
      return rows.slice(q.offset, q.offset + q.limit);
    }),
  );

  r.get(
    '/value',
    jsonRoute((req) => {
      const user = userParam(req);
      const markets = csv(one(req, 'market'));
      const value = positionsOf(user)
        .filter((p) => markets.length === 0 || markets.includes(p.conditionId.toLowerCase()))
        .reduce((s, p) => s + p.currentValue, 0);
      return [{ user, value: clean(value) }];
    }),
  );

  return r;
}
