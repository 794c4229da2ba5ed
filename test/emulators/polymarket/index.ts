import { listen } from '../listen.js';
import { adminPriceMove, startPriceDrift } from '../price-drift.js';
import express, { type NextFunction, type Request, type Response } from 'express';
import { faultInjector, requestLog, syncClock } from './control.js';
import { accountRouter } from './routes/account.js';
import { adminTradingRouter } from './routes/admin-trading.js';
import { adminRouter } from './routes/admin.js';
import { authRouter } from './routes/auth.js';
import { clobRouter } from './routes/clob.js';
import { dataRouter } from './routes/data.js';
import { gammaRouter } from './routes/gamma.js';
import { ordersRouter } from './routes/orders.js';
import { relayerRouter } from './routes/relayer.js';
import { PolymarketState, type StateOptions } from './state.js';
import { PolygonChain, polygonAdminRouter, polygonRpcRouter } from '../polygon/index.js';
import { settleOnChain } from '../polygon/exchange-settlement.js';

// Polymarket emulator: a loopback HTTP test double of the public Gamma, CLOB (market data and
// trading: L1/L2 auth, V2 orders, matching, cancels, orders/trades, balances) and Data APIs. The real services are separate hosts whose paths collide (`/markets/{id}` exists on
// both Gamma and the CLOB), so one server serves each under its own prefix:
//   <base>/gamma  <base>/clob  <base>/data  and the test control plane <base>/__admin.
// Point the adapters at `gammaUrl`, `clobUrl`, `dataUrl` and they run unchanged. The Polygon
// JSON-RPC stand-in (../polygon) is mounted at <base>/polygon and the relayer at <base>/relayer
// over the same state, so chain, relayer and CLOB see one ledger.
// No production module may import this.

export { FIXTURES, TAGS } from './catalogue.js';
export { FAST_ASSETS, FAST_WINDOWS, currentWindowStart, fastMarketSlug, fastWinner } from './fast-markets.js';
export { PolymarketState } from './state.js';
export { CONTRACTS, HOUSE_ADDRESS } from './contracts.js';
export { RELAYER_BUILDER_CREDENTIALS } from './routes/relayer.js';
export { depositWalletOf } from './deposit-wallets.js';
export { WalletLedger, MAX_UINT256, UNIT, fromUnits, toUnits } from './wallet-ledger.js';
export type { EventRecord, MarketRecord, Resolution } from './model.js';

export interface PolymarketEmulator {
  url: string;
  gammaUrl: string;
  clobUrl: string;
  dataUrl: string;
  adminUrl: string;
  /** Polygon JSON-RPC (chain id 137) over the same ledger; its admin is `${adminUrl}/polygon`. */
  rpcUrl: string;
  /** Polymarket's relayer (deposit wallets: WALLET-CREATE, WALLET batches) over the same ledger. */
  relayerUrl: string;
  close(): Promise<void>;
  state: PolymarketState;
  chain: PolygonChain;
}

export interface PolymarketEmulatorOptions extends StateOptions {
  /** 0 (default) = a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Set: open markets' prices wander every this many ms (the offline demo; tests move prices themselves). */
  driftEveryMs?: number;
}

export function createPolymarketApp(state: PolymarketState) {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const faults = faultInjector(state);
  const chain = new PolygonChain(state);
  // Every match, the crowd's included, goes on the chain as the exchange's fill events.
  state.settleOnChain = (m) => settleOnChain(state, chain, m);

  // The control plane is neither logged nor subject to faults.
  // A full reset also forgets the chain (POL, nonces, transactions): it shares the ledger.
  app.post('/__admin/reset', (_req, _res, next) => {
    chain.reset();
    next();
  });
  app.use('/__admin/polygon', polygonAdminRouter(state, chain));
  app.use('/__admin', adminRouter(state));
  app.use('/__admin', adminTradingRouter(state));
  app.use('/__admin', (_req, res) => void res.status(404).json({ error: 'unknown admin endpoint' }));

  app.use(requestLog(state));
  app.use(faults.middleware);
  app.use(syncClock(state));
  app.use('/gamma', gammaRouter(state));
  // The raw body is kept: L2 signatures are HMACs of the exact bytes the client sent.
  const json = express.json({
    limit: '5mb',
    verify: (req, _res, buf) => void ((req as { rawBody?: string }).rawBody = buf.toString('utf8')),
  });
  app.use('/clob', json, clobRouter(state), authRouter(state), ordersRouter(state), accountRouter(state));
  app.use('/data', dataRouter(state));
  app.use('/relayer', json, relayerRouter(state, chain));
  app.use('/polygon', polygonRpcRouter(state, chain));

  // Unknown paths: the Go services behind these hosts answer with the stock Go 404
  // ("404 page not found", text/plain) — our best knowledge, the exact body is undocumented.
  app.use((_req, res) => void res.status(404).type('text/plain').send('404 page not found'));
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const e = err as { type?: string; status?: number };
    if (e.type === 'entity.parse.failed') {
      res
        .status(400)
        .json({ error: req.path.startsWith('/__admin') ? 'invalid JSON body' : 'Invalid payload' });
      return;
    }
    console.error('[polymarket emulator]', err);
    res.status(500).json({ error: 'emulator error' });
  });
  return { app, chain, releaseHanging: faults.release };
}

export async function startPolymarketEmulator(
  opts: PolymarketEmulatorOptions = {},
): Promise<PolymarketEmulator> {
  const host = opts.host ?? '127.0.0.1';
  const state = new PolymarketState(opts);
  const { app, chain, releaseHanging } = createPolymarketApp(state);
  const { server, url } = await listen(app, host, opts.port);
  const stopDrift = opts.driftEveryMs
    ? startPriceDrift({
        everyMs: opts.driftEveryMs,
        markets: () =>
          [...state.markets.values()]
            .filter((m) => !m.closed && !m.resolution)
            .map((m) => ({ id: m.conditionId, yes: m.price, tick: m.tick })),
        move: adminPriceMove(`${url}/__admin`),
      })
    : () => undefined;
  return {
    url,
    gammaUrl: `${url}/gamma`,
    clobUrl: `${url}/clob`,
    dataUrl: `${url}/data`,
    adminUrl: `${url}/__admin`,
    rpcUrl: `${url}/polygon`,
    relayerUrl: `${url}/relayer`,
    state,
    chain,
    close: () =>
      new Promise<void>((resolve, reject) => {
        stopDrift();
        releaseHanging();
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
