import express, { Router, type Request } from 'express';
import { HttpError, jsonRoute } from '../../polymarket/routes/json-route.js';
import { isBase58Of } from '../base58.js';
import { quoteAround } from '../catalogue.js';
import { ATOMIC, CASH_MINT, LAMPORTS_PER_SOL, USDC_MINT } from '../constants.js';
import { marketAccounts } from '../dflow/mints.js';
import type { DflowOrder, Script } from '../dflow/desk.js';
import { dflowMarket } from '../dflow-wire.js';
import { marketWire } from '../kalshi-wire.js';
import {
  dollarsToPips,
  FAULT_MODES,
  MARKET_STATUSES,
  type FaultMode,
  type MarketRecord,
  type MarketStatus,
  type WireMode,
} from '../model.js';
import { DEFAULT_SETTINGS, type KalshiState, type Settings } from '../state.js';

// Test control plane under `<base>/__admin` (JSON in, JSON out, errors `{"error": …}`), not part of
// any real API. Amounts are human units (USDC, SOL, contracts). See ../KALSHI.md.

const body = (req: Request): Record<string, unknown> =>
  typeof req.body === 'object' && req.body !== null && !Array.isArray(req.body)
    ? (req.body as Record<string, unknown>)
    : {};
const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
/** Human units → atomic (6 dp), exact for decimal inputs with up to 6 places. */
const atomic = (v: number) => BigInt(Math.round(v * 1_000_000));
const human = (a: bigint) => Number(a) / Number(ATOMIC);

function orderView(o: DflowOrder) {
  return {
    id: o.id,
    ticker: o.ticker,
    action: o.action,
    side: o.side,
    user: o.user,
    status: o.status,
    signature: o.signature ?? null,
    input_mint: o.inputMint,
    output_mint: o.outputMint,
    in_amount: String(o.inAmount),
    out_amount: String(o.outAmount),
    price: o.price / 10_000,
    last_valid_block_height: o.lastValidBlockHeight,
    fills: o.fills,
    reverts: o.reverts,
  };
}

export function adminRouter(state: KalshiState): Router {
  const r = Router();
  r.use(express.json());
  r.use((_req, _res, next) => {
    state.sync();
    next();
  });

  const market = (req: Request): MarketRecord => {
    const m = state.markets.get(String(req.params.ticker).toUpperCase());
    if (!m) throw new HttpError(404, `unknown market ${String(req.params.ticker)}`);
    return m;
  };
  const address = (req: Request): string => {
    const a = String(req.params.address);
    if (!isBase58Of(a, 32)) throw new HttpError(400, 'not a Solana address (base58 of 32 bytes)');
    return a;
  };
  const view = (m: MarketRecord) => ({ market: marketWire(m), dflow: dflowMarket(m) });

  // ── Markets ────────────────────────────────────────────────────────────────────────────────
  r.post(
    '/markets/:ticker/lifecycle',
    jsonRoute((req) => {
      const m = market(req);
      const b = body(req);
      const status = b.status === 'settled' ? 'finalized' : (b.status as MarketStatus);
      if (!MARKET_STATUSES.includes(status))
        throw new HttpError(400, `"status" must be one of ${MARKET_STATUSES.join(', ')} (or settled)`);
      const result = b.result;
      if (result !== undefined && !['', 'yes', 'no', 'scalar'].includes(result as string))
        throw new HttpError(400, '"result" must be "yes", "no", "scalar" or ""');
      if (
        ['determined', 'amended', 'finalized'].includes(status) &&
        (result ?? m.result) === '' &&
        !finite(b.settlement_value)
      )
        throw new HttpError(400, `"result" is required to move a market to ${status}`);
      const now = state.now();
      m.status = status;
      if (result !== undefined) m.result = result as MarketRecord['result'];
      if (finite(b.settlement_value)) m.settlementValue = dollarsToPips(b.settlement_value);
      else if (m.result === 'yes' || m.result === 'no') m.settlementValue = m.result === 'yes' ? 10_000 : 0;
      if (m.result === 'scalar' && m.settlementValue !== null) m.scalarOutcomePct = m.settlementValue;
      if (typeof b.expiration_value === 'string') m.expirationValue = b.expiration_value;
      else if (m.result && !m.expirationValue) m.expirationValue = m.result;
      if (status !== 'active' && status !== 'initialized' && status !== 'inactive') {
        // No book once trading stops; the last price stays.
        m.yesBid = null;
        m.yesAsk = null;
        if (now < m.closeTime) m.closeTime = now;
      }
      if (status === 'finalized') {
        m.settlementTs = m.settlementTs ?? now;
        m.redemptionStatus = 'open';
      }
      if (status === 'active' && m.yesBid === null && m.yesAsk === null)
        Object.assign(m, bookAround(m.lastPrice / 10_000));
      if (typeof b.legacy_settled === 'boolean') m.legacySettled = b.legacy_settled;
      if (typeof b.historical === 'boolean') m.historical = b.historical;
      if (['open', 'pending', 'closed'].includes(b.redemption_status as string))
        m.redemptionStatus = b.redemption_status as MarketRecord['redemptionStatus'];
      m.updatedAt = now;
      return view(m);
    }),
  );

  const bookAround = (yes: number) => {
    const q = quoteAround(yes);
    return { yesBid: q.yesBid, yesAsk: q.yesAsk, lastPrice: q.last };
  };

  r.post(
    '/markets/:ticker/price',
    jsonRoute((req) => {
      const m = market(req);
      const b = body(req);
      const from = m.lastPrice;
      if (b.empty === true) {
        m.yesBid = null;
        m.yesAsk = null;
      } else if (finite(b.yes_bid) || finite(b.yes_ask)) {
        const bid = finite(b.yes_bid) ? dollarsToPips(b.yes_bid) : null;
        const ask = finite(b.yes_ask) ? dollarsToPips(b.yes_ask) : null;
        if (
          (bid !== null && (bid <= 0 || bid >= 10_000)) ||
          (ask !== null && (ask <= 0 || ask >= 10_000)) ||
          (bid !== null && ask !== null && bid >= ask)
        )
          throw new HttpError(400, '"yes_bid" < "yes_ask", both in (0, 1)');
        m.yesBid = bid;
        m.yesAsk = ask;
        if (bid !== null && ask !== null) m.lastPrice = Math.round((bid + ask) / 2);
      } else {
        if (!finite(b.yes) || b.yes <= 0 || b.yes >= 1)
          throw new HttpError(400, '"yes" must be a number in (0, 1)');
        Object.assign(m, bookAround(b.yes));
      }
      if (finite(b.depth) && b.depth > 0) m.depth = b.depth;
      m.updatedAt = state.now();
      // A move is the trace of trades; emptying the book is not one.
      if (b.empty !== true) state.printPriceMove(m, from);
      return view(m);
    }),
  );

  r.post(
    '/markets/:ticker/wire',
    jsonRoute((req) => {
      const m = market(req);
      const mode = body(req).mode as WireMode;
      if (!['current', 'legacy', 'both'].includes(mode))
        throw new HttpError(400, '"mode" must be current, legacy or both');
      m.wire = mode;
      return view(m);
    }),
  );

  r.post(
    '/markets/:ticker/dflow',
    jsonRoute((req) => {
      const m = market(req);
      const b = body(req);
      if (typeof b.initialized === 'boolean') m.dflowInitialized = b.initialized;
      if (['open', 'pending', 'closed'].includes(b.redemption_status as string))
        m.redemptionStatus = b.redemption_status as MarketRecord['redemptionStatus'];
      if (finite(b.scalar_outcome_pct)) m.scalarOutcomePct = b.scalar_outcome_pct;
      return view(m);
    }),
  );

  /** A fresh event no other test has seen: `{title, markets: [{yes_sub_title, yes}], series_ticker?, event_ticker?}`. */
  r.post(
    '/events',
    jsonRoute((req) => {
      const b = body(req);
      if (typeof b.title !== 'string' || !b.title.trim()) throw new HttpError(400, '"title" is required');
      const specs = Array.isArray(b.markets) ? (b.markets as Record<string, unknown>[]) : [{ yes: 0.5 }];
      if (specs.length === 0) throw new HttpError(400, '"markets" must not be empty');
      const series =
        typeof b.series_ticker === 'string' ? b.series_ticker.toUpperCase() : `KXTEST${state.events.size}`;
      const eventTicker =
        typeof b.event_ticker === 'string'
          ? b.event_ticker.toUpperCase()
          : `${series}-${Date.now().toString(36).toUpperCase()}${state.events.size}`;
      if (state.events.has(eventTicker)) throw new HttpError(409, `event ${eventTicker} exists`);
      const { event, markets } = state.addEvent({
        eventTicker,
        seriesTicker: series,
        title: b.title,
        subTitle: typeof b.sub_title === 'string' ? b.sub_title : '',
        mutuallyExclusive: b.mutually_exclusive === true || specs.length > 1,
        category: typeof b.category === 'string' ? b.category : 'Test',
        markets: specs.map((s, i) => ({
          ticker: `${eventTicker}-${typeof s.suffix === 'string' ? s.suffix.toUpperCase() : `T${i + 1}`}`,
          title: typeof s.title === 'string' ? s.title : (b.title as string),
          yesSubTitle: typeof s.yes_sub_title === 'string' ? s.yes_sub_title : '',
          yes: s.yes === null ? null : finite(s.yes) ? s.yes : 0.5,
          status: MARKET_STATUSES.includes(s.status as MarketStatus) ? (s.status as MarketStatus) : undefined,
          closeInDays: finite(s.close_in_days) ? s.close_in_days : undefined,
          wire: ['current', 'legacy', 'both'].includes(s.wire as string) ? (s.wire as WireMode) : undefined,
          dflowInitialized: typeof s.initialized === 'boolean' ? s.initialized : undefined,
          // A bracket or threshold market as Kalshi lists one (kalshi.md §1.3), e.g. a temperature bucket.
          noSubTitle: typeof s.no_sub_title === 'string' ? s.no_sub_title : undefined,
          strikeType: typeof s.strike_type === 'string' ? s.strike_type : undefined,
          floorStrike: finite(s.floor_strike) ? s.floor_strike : undefined,
          capStrike: finite(s.cap_strike) ? s.cap_strike : undefined,
          rulesPrimary: typeof s.rules_primary === 'string' ? s.rules_primary : undefined,
          volume: finite(s.volume) && s.volume >= 0 ? Math.round(s.volume) : undefined,
        })),
      });
      return {
        event_ticker: event.eventTicker,
        series_ticker: event.seriesTicker,
        markets: markets.map((m) => ({
          ticker: m.ticker,
          yes_sub_title: m.yesSubTitle,
          ...marketAccounts(m.ticker, USDC_MINT),
        })),
      };
    }),
  );

  r.get('/catalogue', (_req, res) => {
    res.json(
      [...state.events.values()].map((e) => ({
        event_ticker: e.eventTicker,
        series_ticker: e.seriesTicker,
        title: e.title,
        markets: state.marketsOf(e.eventTicker).map((m) => ({
          ticker: m.ticker,
          status: m.status,
          result: m.result,
          yes_bid: m.yesBid === null ? null : m.yesBid / 10_000,
          yes_ask: m.yesAsk === null ? null : m.yesAsk / 10_000,
          wire: m.wire,
          historical: m.historical,
          ...marketAccounts(m.ticker, USDC_MINT),
        })),
      })),
    );
  });

  // ── KYC (DFlow Proof) ─────────────────────────────────────────────────────────────────────
  r.post(
    '/kyc/:address',
    jsonRoute((req) => {
      const a = address(req);
      if (body(req).verified === false) state.kyc.delete(a);
      else state.kyc.add(a);
      return { address: a, verified: state.kyc.has(a) };
    }),
  );
  r.delete(
    '/kyc/:address',
    jsonRoute((req) => {
      const a = address(req);
      state.kyc.delete(a);
      return { address: a, verified: false };
    }),
  );

  // ── Wallets ───────────────────────────────────────────────────────────────────────────────
  const walletView = (a: string) => ({
    address: a,
    sol: Number(state.chain.balance(a)) / Number(LAMPORTS_PER_SOL),
    lamports: String(state.chain.balance(a)),
    kyc: state.kyc.has(a),
    token_accounts: state.chain.accountsOf(a).map((t) => ({
      address: t.address,
      mint: t.mint,
      program: t.program,
      amount: String(t.amount),
      ui_amount: human(t.amount),
      ...(state.mints.get(t.mint) ?? {}),
    })),
  });
  r.get(
    '/wallets/:address',
    jsonRoute((req) => walletView(address(req))),
  );
  r.post(
    '/wallets/:address/fund',
    jsonRoute((req) => {
      const a = address(req);
      const b = body(req);
      for (const k of ['usdc', 'sol', 'cash'] as const)
        if (b[k] !== undefined && (!finite(b[k]) || (b[k] as number) < 0))
          throw new HttpError(400, `"${k}" must be a number ≥ 0`);
      if (finite(b.sol)) state.chain.addLamports(a, BigInt(Math.round(b.sol * 1e9)));
      if (finite(b.usdc)) state.chain.ensureTokenAccount(a, USDC_MINT).amount += atomic(b.usdc);
      if (finite(b.cash)) state.chain.ensureTokenAccount(a, CASH_MINT).amount += atomic(b.cash);
      const tokens = b.tokens;
      if (tokens !== undefined) {
        if (typeof tokens !== 'object' || tokens === null)
          throw new HttpError(400, '"tokens" must be {mint: amount}');
        for (const [mint, amount] of Object.entries(tokens)) {
          if (!state.mints.has(mint) || !finite(amount) || amount < 0)
            throw new HttpError(400, `bad token entry ${mint}`);
          state.chain.ensureTokenAccount(a, mint).amount += atomic(amount);
        }
      }
      return walletView(a);
    }),
  );
  r.delete(
    '/wallets/:address/usdc-account',
    jsonRoute((req) => {
      const a = address(req);
      return { deleted: state.chain.deleteTokenAccount(a, USDC_MINT), ...walletView(a) };
    }),
  );

  // ── Chain ─────────────────────────────────────────────────────────────────────────────────
  const chainView = () => ({ block_height: state.chain.height, slot: state.chain.slot });
  r.get('/blocks', (_req, res) => void res.json(chainView()));
  r.post(
    '/blocks/advance',
    jsonRoute((req) => {
      const n = body(req).n ?? 1;
      if (!Number.isInteger(n) || (n as number) < 1)
        throw new HttpError(400, '"n" must be a positive integer');
      state.advanceBlocks(n as number);
      return chainView();
    }),
  );

  // ── Orders ────────────────────────────────────────────────────────────────────────────────
  const order = (req: Request): DflowOrder => {
    const o = state.desk.bySig(String(req.params.signature));
    if (!o) throw new HttpError(404, 'unknown signature');
    return o;
  };
  r.get('/orders', (_req, res) => void res.json(state.desk.orders.map(orderView)));
  r.get(
    '/orders/:signature',
    jsonRoute((req) => orderView(order(req))),
  );
  r.post(
    '/orders/fill-now',
    jsonRoute((req) => {
      const b = body(req);
      const targets =
        typeof b.signature === 'string'
          ? [state.desk.bySig(b.signature)].filter((o): o is DflowOrder => !!o)
          : state.desk.orders.filter((o) => o.status === 'open' || o.status === 'pendingClose');
      const fraction = finite(b.fraction) && b.fraction >= 0 && b.fraction <= 1 ? b.fraction : undefined;
      for (const o of targets) state.settle(o, { fraction });
      return targets.map(orderView);
    }),
  );
  r.post(
    '/orders/:signature/fail',
    jsonRoute((req) => {
      const o = order(req);
      state.fail(o);
      return orderView(o);
    }),
  );
  r.post(
    '/orders/:signature/expire',
    jsonRoute((req) => {
      const o = order(req);
      if (o.status !== 'pending')
        throw new HttpError(409, `order is ${o.status}; only a pending order can expire`);
      state.expire(o);
      return orderView(o);
    }),
  );
  r.post(
    '/orders/script',
    jsonRoute((req) => {
      const b = body(req);
      const outcome = b.outcome as Script['outcome'];
      if (!['fail', 'partial', 'hold'].includes(outcome))
        throw new HttpError(400, '"outcome" must be fail, partial or hold');
      const fraction = finite(b.fill_fraction) ? b.fill_fraction : 0.5;
      if (fraction < 0 || fraction > 1) throw new HttpError(400, '"fill_fraction" must be in [0, 1]');
      const count = b.count ?? 1;
      if (!Number.isInteger(count) || (count as number) < 1)
        throw new HttpError(400, '"count" must be a positive integer');
      state.desk.scripts.push({ outcome, fraction, remaining: count as number });
      return state.desk.scripts;
    }),
  );

  // ── Settings, faults, clock, requests, reset ──────────────────────────────────────────────
  r.get('/settings', (_req, res) => void res.json(state.settings));
  r.post(
    '/settings',
    jsonRoute((req) => {
      const b = body(req);
      const next: Settings = { ...state.settings };
      for (const [k, v] of Object.entries(b)) {
        if (!(k in DEFAULT_SETTINGS)) throw new HttpError(400, `unknown setting ${k}`);
        (next as unknown as Record<string, unknown>)[k] = v;
      }
      if (next.fill_after_ms !== null && (!finite(next.fill_after_ms) || next.fill_after_ms < 0))
        throw new HttpError(400, '"fill_after_ms": ms ≥ 0 or null');
      if (!finite(next.pending_close_ms) || next.pending_close_ms < 0)
        throw new HttpError(400, '"pending_close_ms": ms ≥ 0');
      if (next.block_ms !== null && (!finite(next.block_ms) || next.block_ms <= 0))
        throw new HttpError(400, '"block_ms": ms > 0 or null');
      if (!['off', 'on', 'schedule'].includes(next.maintenance))
        throw new HttpError(400, '"maintenance": off, on or schedule');
      if (typeof next.kyc_on_sells !== 'boolean') throw new HttpError(400, '"kyc_on_sells": boolean');
      if (!['preflight', 'verify'].includes(next.signature_failure))
        throw new HttpError(400, '"signature_failure": preflight or verify');
      state.settings = next;
      return next;
    }),
  );

  r.get('/faults', (_req, res) => void res.json({ armed: state.faults, served: state.faultsServed }));
  r.post(
    '/faults',
    jsonRoute((req) => {
      const b = body(req);
      const mode = String(b.mode) as FaultMode;
      if (!FAULT_MODES.includes(mode))
        throw new HttpError(400, `"mode" must be one of ${FAULT_MODES.join(', ')}`);
      const count = b.count;
      if (count !== undefined && count !== null && (!Number.isInteger(count) || (count as number) < 1))
        throw new HttpError(400, '"count" must be a positive integer');
      if (
        b.path_prefix !== undefined &&
        (typeof b.path_prefix !== 'string' || !b.path_prefix.startsWith('/'))
      )
        throw new HttpError(
          400,
          '"path_prefix" must start with "/" (e.g. "/dflow-trade/order" or "/solana")',
        );
      state.faults.push({
        mode,
        remaining: typeof count === 'number' ? count : null,
        pathPrefix: b.path_prefix as string | undefined,
        hangMs: finite(b.delay_ms) ? b.delay_ms : mode === 'slow' ? 2_000 : 60_000,
      });
      return { armed: state.faults, served: state.faultsServed };
    }),
  );
  r.delete('/faults', (_req, res) => {
    state.faults = [];
    res.json({ armed: [], served: state.faultsServed });
  });

  const clock = () => ({ now_ms: state.now(), offset_ms: state.clockOffsetMs, ...chainView() });
  r.get('/clock', (_req, res) => void res.json(clock()));
  r.post(
    '/clock',
    jsonRoute((req) => {
      const advance = body(req).advance_ms;
      if (!finite(advance) || advance < 0) throw new HttpError(400, '"advance_ms" must be a number ≥ 0');
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

  r.use((_req, res) => void res.status(404).json({ error: 'unknown admin endpoint' }));
  return r;
}
