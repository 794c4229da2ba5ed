import express, { Router, type Request } from 'express';
import { isAddress } from 'ethers';
import { TRADING_MODES, type ClobSettings, type TradeRecord } from '../clob-records.js';
import { openOrderWire, tradeWire } from '../clob-wire.js';
import { APPROVAL_TARGETS } from '../contracts.js';
import type { MarketRecord } from '../model.js';
import type { PolymarketState } from '../state.js';
import { TRADE_STATUSES } from '../trade-lifecycle.js';
import { MAX_UINT256, toUnits } from '../wallet-ledger.js';
import { gammaMarket } from '../wire.js';
import { HttpError, jsonRoute } from './json-route.js';

// Control plane of the trading side, under `/__admin` next to admin.ts: wallets (fund, approve,
// set balances), CLOB switches (trading mode, delayed answers, settlement timing, auth clock
// window, page size), and the hooks order-sync tests need: cross a resting order, run delayed
// orders now, move trades to MINED / CONFIRMED / FAILED. Amounts are human units (pUSD, shares).

const body = (req: Request): Record<string, unknown> =>
  typeof req.body === 'object' && req.body !== null && !Array.isArray(req.body)
    ? (req.body as Record<string, unknown>)
    : {};
const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const nonNegative = (v: unknown, name: string): number => {
  if (!finite(v) || v < 0) throw new HttpError(400, `"${name}" must be a number ≥ 0`);
  return v;
};
/** `null` switches an automatic timer off; a number of ms sets it. */
const msOrNull = (v: unknown, name: string): number | null => (v === null ? null : nonNegative(v, name));

export function adminTradingRouter(state: PolymarketState): Router {
  const r = Router();
  r.use(express.json());
  const { ledger, exchange } = state;

  const address = (req: Request): string => {
    const a = String(req.params.address);
    if (!isAddress(a)) throw new HttpError(400, 'not an address');
    return a.toLowerCase();
  };
  const tokenAmounts = (v: unknown): [string, number, MarketRecord][] => {
    if (v === undefined) return [];
    if (typeof v !== 'object' || v === null || Array.isArray(v))
      throw new HttpError(400, '"tokens" must be an object {"<token id>": shares}');
    return Object.entries(v).map(([token, amount]) => {
      const hit = state.marketByToken(token);
      if (!hit) throw new HttpError(404, `unknown token id ${token}`);
      return [token, nonNegative(amount, `tokens.${token}`), hit.market];
    });
  };
  /** A wallet as the chain sees it, plus what its open orders hold back (human units). */
  const view = (a: string) => ({
    address: a,
    pusd: Number(ledger.pusdBalance(a)) / 1e6,
    usdce: Number(ledger.usdceBalance(a)) / 1e6,
    tokens: Object.fromEntries([...ledger.tokenBalances(a)].map(([t, u]) => [t, Number(u) / 1e6])),
    allowances: Object.fromEntries(APPROVAL_TARGETS.map((s) => [s, ledger.allowance(a, s).toString()])),
    approved_for_all: Object.fromEntries(APPROVAL_TARGETS.map((s) => [s, ledger.isApprovedForAll(a, s)])),
    reserved_pusd: Number(exchange.reservedPusd(a)) / 1e6,
  });

  r.get(
    '/wallets/:address',
    jsonRoute((req) => view(address(req))),
  );

  // Adds pUSD, USDC.e (`usdce`) and/or outcome tokens (minted, as a deposit or a split would). Tokens get an entry
  // price for the Data API: `avg_price`, else the token's current price.
  r.post(
    '/wallets/:address/fund',
    jsonRoute((req) => {
      const a = address(req);
      const b = body(req);
      const tokens = tokenAmounts(b.tokens);
      if (b.pusd !== undefined) ledger.mintPusd(a, toUnits(nonNegative(b.pusd, 'pusd')));
      if (b.usdce !== undefined) ledger.mintUsdce(a, toUnits(nonNegative(b.usdce, 'usdce')));
      for (const [token, shares, m] of tokens) {
        const held = Number(ledger.tokenBalance(a, token)) / 1e6;
        const index = m.tokenIds.indexOf(token);
        const price = finite(b.avg_price) ? b.avg_price : index === 0 ? m.price : 1 - m.price;
        state.basis.recordBuy(a, token, held, shares, price);
        ledger.mintTokens(a, token, toUnits(shares));
      }
      return view(a);
    }),
  );

  // Sets balances to exact values (e.g. drain a wallet to test refusals).
  r.post(
    '/wallets/:address/balances',
    jsonRoute((req) => {
      const a = address(req);
      const b = body(req);
      const tokens = tokenAmounts(b.tokens);
      if (b.pusd !== undefined) ledger.setPusdBalance(a, toUnits(nonNegative(b.pusd, 'pusd')));
      for (const [token, shares] of tokens) ledger.setTokenBalance(a, token, toUnits(shares));
      return view(a);
    }),
  );

  // The one-time approvals of §8.3: pUSD approve(max) and CTF setApprovalForAll(true) towards
  // both V2 exchanges, the neg-risk adapter and the collateral adapters. {"approved": false} revokes.
  r.post(
    '/wallets/:address/approve',
    jsonRoute((req) => {
      const a = address(req);
      const approved = body(req).approved !== false;
      for (const spender of APPROVAL_TARGETS) {
        ledger.approve(a, spender, approved ? MAX_UINT256 : 0n);
        ledger.setApprovalForAll(a, spender, approved);
      }
      return view(a);
    }),
  );

  const settingsView = (s: ClobSettings) => ({
    trading: s.trading,
    mined_after_ms: s.minedAfterMs,
    confirmed_after_ms: s.confirmedAfterMs,
    auth_skew_s: s.authSkewSec,
    page_size: s.pageSize,
    deposit_wallet_only: s.depositWalletOnly,
    delay_next: s.delayNext,
    delay_ms: s.delayMs,
  });
  r.get('/clob/settings', (_req, res) => void res.json(settingsView(exchange.settings)));
  r.post(
    '/clob/settings',
    jsonRoute((req) => {
      const b = body(req);
      const s = { ...exchange.settings };
      if (b.trading !== undefined) {
        if (!TRADING_MODES.includes(b.trading as ClobSettings['trading']))
          throw new HttpError(400, `"trading" must be one of ${TRADING_MODES.join(', ')}`);
        s.trading = b.trading as ClobSettings['trading'];
      }
      if (b.mined_after_ms !== undefined) s.minedAfterMs = msOrNull(b.mined_after_ms, 'mined_after_ms');
      if (b.confirmed_after_ms !== undefined)
        s.confirmedAfterMs = msOrNull(b.confirmed_after_ms, 'confirmed_after_ms');
      if (b.auth_skew_s !== undefined) s.authSkewSec = msOrNull(b.auth_skew_s, 'auth_skew_s');
      if (b.page_size !== undefined) {
        if (!Number.isInteger(b.page_size) || (b.page_size as number) < 1)
          throw new HttpError(400, '"page_size" must be a positive integer');
        s.pageSize = b.page_size as number;
      }
      if (b.deposit_wallet_only !== undefined) s.depositWalletOnly = b.deposit_wallet_only === true;
      exchange.settings = s;
      return settingsView(s);
    }),
  );

  // The next `count` orders answer `delayed` and meet the book `delay_ms` later (emulator clock),
  // or when /clob/delayed/release is called.
  r.post(
    '/clob/delay',
    jsonRoute((req) => {
      const b = body(req);
      const count = b.count ?? 1;
      if (!Number.isInteger(count) || (count as number) < 0)
        throw new HttpError(400, '"count" must be an integer ≥ 0');
      exchange.settings.delayNext = count as number;
      if (b.delay_ms !== undefined) exchange.settings.delayMs = nonNegative(b.delay_ms, 'delay_ms');
      return settingsView(exchange.settings);
    }),
  );
  r.post('/clob/delayed/release', (_req, res) => void res.json({ released: exchange.releaseDelayed() }));

  const adminOrder = (o: Parameters<typeof openOrderWire>[0]) => ({
    ...openOrderWire(o),
    owner_address: o.ownerAddress,
    signature_type: o.signatureType,
  });
  r.get(
    '/clob/orders',
    jsonRoute((req) => {
      const owner = typeof req.query.owner === 'string' ? req.query.owner.toLowerCase() : undefined;
      const status = typeof req.query.status === 'string' ? req.query.status.toUpperCase() : undefined;
      return [...exchange.orders.values()]
        .filter(
          (o) =>
            (!owner || o.ownerAddress === owner || o.maker.toLowerCase() === owner) &&
            (!status || o.status === status),
        )
        .map(adminOrder);
    }),
  );
  const order = (req: Request) => {
    const o = exchange.orders.get(String(req.params.orderId));
    if (!o) throw new HttpError(404, 'unknown order');
    return o;
  };
  r.get(
    '/clob/orders/:orderId',
    jsonRoute((req) => adminOrder(order(req))),
  );

  // "Cross this order": the house takes the resting order (all of it, or `size` shares) at the
  // order's price, as if a counterparty arrived. 409 when the order is not resting or its maker
  // cannot pay any more.
  r.post(
    '/clob/orders/:orderId/cross',
    jsonRoute((req) => {
      const o = order(req);
      const size = body(req).size;
      if (o.status !== 'LIVE') throw new HttpError(409, `order is ${o.status}, not LIVE`);
      const trade = exchange.cross(o.id, size === undefined ? undefined : toUnits(nonNegative(size, 'size')));
      if (!trade) throw new HttpError(409, 'nothing crossed: the maker has no balance/allowance left');
      return { order: adminOrder(o), trade: tradeWire(trade, o.ownerAddress) };
    }),
  );

  const adminTrade = (t: TradeRecord) => ({
    ...tradeWire(t, t.takerOwnerAddress),
    taker_address: t.takerOwnerAddress,
  });
  r.get('/clob/trades', (_req, res) => void res.json([...exchange.trades.values()].map(adminTrade)));
  r.post(
    '/clob/trades/:tradeId/status',
    jsonRoute((req) => {
      const t = exchange.trades.get(String(req.params.tradeId));
      if (!t) throw new HttpError(404, 'unknown trade');
      const status = String(body(req).status ?? '').toUpperCase() as TradeRecord['status'];
      if (!TRADE_STATUSES.includes(status))
        throw new HttpError(400, `"status" must be one of ${TRADE_STATUSES.join(', ')}`);
      exchange.setTradeStatus(t, status);
      return adminTrade(t);
    }),
  );
  // Every unfinished trade to `status` (default CONFIRMED): "the chain caught up".
  r.post(
    '/clob/trades/settle',
    jsonRoute((req) => {
      const status = String(body(req).status ?? 'CONFIRMED').toUpperCase() as TradeRecord['status'];
      if (!TRADE_STATUSES.includes(status))
        throw new HttpError(400, `"status" must be one of ${TRADE_STATUSES.join(', ')}`);
      return { updated: exchange.settleAll(status) };
    }),
  );

  // Pause / resume order intake of one market (acceptingOrders); open orders stay.
  r.post(
    '/markets/:conditionId/accepting-orders',
    jsonRoute((req) => {
      const key = String(req.params.conditionId);
      const m = state.marketByConditionId(key) ?? state.marketBySlug(key);
      if (!m) throw new HttpError(404, `unknown market ${key}`);
      const accepting = body(req).accepting;
      if (typeof accepting !== 'boolean') throw new HttpError(400, '"accepting" must be a boolean');
      m.acceptingOrders = accepting;
      return gammaMarket(state, m);
    }),
  );

  return r;
}
