import { Router, type Request } from 'express';
import { clean, isoDay, type Holding } from '../model.js';
import type { PolymarketState } from '../state.js';
import { tokenPrice } from '../wire.js';
import { bool, one, uint } from './params.js';
import { HttpError, jsonRoute } from './json-route.js';

// Data API (https://data-api.polymarket.com), reference §7: positions derived from the wallet
// ledger (funded through the admin API or filled on the emulated CLOB), entry prices and the
// current market prices; trades from the CLOB's fills. camelCase, numbers are numbers.
// Choices where the reference is silent: a missing `user` → 400
// `{"error":"required query param 'user' not provided"}`, a malformed one → 400
// `{"error":"invalid user address"}` (the real texts are undocumented); `limit` above 500 is
// clamped to 500; `redeemable`/`mergeable` filter by equality when sent.

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

  // Fills of `user` (the funder address), newest first (§7). Like the real API, only the fills
  // where the user was the taker unless `takerOnly=false`; FAILED trades are not fills.
  r.get(
    '/trades',
    jsonRoute((req) => {
      const user = userParam(req);
      const markets = csv(one(req, 'market'));
      const takerOnly = bool(one(req, 'takerOnly'));
      const side = one(req, 'side')?.toUpperCase();
      const limit = uint(one(req, 'limit'));
      const offset = uint(one(req, 'offset'));
      if (
        takerOnly === null ||
        limit === null ||
        offset === null ||
        (side && side !== 'BUY' && side !== 'SELL')
      )
        throw new HttpError(400, 'invalid filters');
      const rows = [...state.exchange.trades.values()]
        .filter((t) => t.status !== 'FAILED')
        .sort((a, b) => b.seq - a.seq)
        .flatMap((t) => {
          const hit = state.marketByToken(t.tokenId);
          if (!hit) return [];
          const fills: { side: string; shares: bigint; priceMicro: bigint }[] = [];
          if (t.takerMaker.toLowerCase() === user && t.shares > 0n)
            fills.push({ side: t.side, shares: t.shares, priceMicro: (t.notional * 1_000_000n) / t.shares });
          if (takerOnly === false)
            for (const m of t.makers) if (m.makerAddress.toLowerCase() === user) fills.push(m);
          const { market: m, index } = hit;
          return fills.map((f) => ({
            proxyWallet: user,
            side: f.side,
            asset: t.tokenId,
            conditionId: m.conditionId,
            size: clean(Number(f.shares) / 1e6),
            price: clean(Number(f.priceMicro) / 1e6),
            timestamp: Math.floor(t.matchMs / 1000),
            title: m.question,
            slug: m.slug,
            eventSlug: state.eventOf(m).slug,
            outcome: m.outcomes[index] as string,
            outcomeIndex: index,
            transactionHash: t.transactionHash,
          }));
        })
        .filter(
          (row) =>
            (markets.length === 0 || markets.includes(row.conditionId.toLowerCase())) &&
            (!side || row.side === side),
        );
      const start = offset ?? 0;
      return rows.slice(start, start + Math.min(limit ?? 100, 500));
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
