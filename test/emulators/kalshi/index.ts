import { listen } from '../listen.js';
import { adminPriceMove, startPriceDrift } from '../price-drift.js';
import express, { type NextFunction, type Request, type Response } from 'express';
import { faultInjector, requestLog, syncClock } from './control.js';
import { adminRouter } from './routes/admin.js';
import { dflowMetadataRouter } from './routes/dflow-metadata.js';
import { dflowTradeRouter } from './routes/dflow-trade.js';
import { kalshiRouter } from './routes/kalshi.js';
import { proofRouter } from './routes/proof.js';
import { solanaRpcRouter } from './solana/rpc-server.js';
import { KalshiState, type KalshiStateOptions } from './state.js';

// Kalshi emulator: a loopback HTTP test double of everything the Kalshi-through-DFlow flow talks
// to (reference shared/reference/kalshi.md §5), on one server over one state and clock:
//   <base>/trade-api/v2     Kalshi Trade API v2 market data
//   <base>/dflow-metadata   DFlow prediction-market metadata (/api/v1/…)
//   <base>/dflow-trade      DFlow trade API (/order, /order-status)
//   <base>/proof            DFlow Proof (/verify/{address})
//   <base>/solana           Solana JSON-RPC (signature-verifying)
//   <base>/__admin          the test control plane (KALSHI.md)
// No production module may import this.

export { FIXTURES } from './catalogue.js';
export { KalshiState, DEFAULT_SETTINGS, type Settings } from './state.js';
export { marketAccounts } from './dflow/mints.js';
export {
  USDC_MINT,
  CASH_MINT,
  TOKEN_PROGRAM,
  TOKEN_2022_PROGRAM,
  associatedTokenAddress,
} from './constants.js';
export { encodeBase58, decodeBase58 } from './base58.js';

export interface KalshiEmulator {
  url: string;
  /** KALSHI_BASE_URL (ends in /trade-api/v2). */
  kalshiUrl: string;
  /** DFLOW_TRADE_API_URL */
  dflowTradeUrl: string;
  /** DFLOW_METADATA_API_URL (paths under /api/v1). */
  dflowMetadataUrl: string;
  /** DFLOW_PROOF_API_URL */
  proofUrl: string;
  /** SOLANA_RPC_URL */
  rpcUrl: string;
  adminUrl: string;
  state: KalshiState;
  close(): Promise<void>;
}

export interface KalshiEmulatorOptions extends KalshiStateOptions {
  /** 0 (default) = a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Set: open markets' prices wander every this many ms (the offline demo; tests move prices themselves). */
  driftEveryMs?: number;
}

export function createKalshiApp(state: KalshiState) {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const faults = faultInjector(state);

  // The control plane is neither logged nor subject to faults.
  app.use('/__admin', adminRouter(state));

  app.use(requestLog(state));
  app.use(faults.middleware);
  app.use(syncClock(state));
  app.use('/trade-api/v2', kalshiRouter(state));
  app.use('/dflow-metadata', dflowMetadataRouter(state));
  app.use('/dflow-trade', dflowTradeRouter(state));
  app.use('/proof', proofRouter(state));
  app.use('/solana', solanaRpcRouter(state));

  app.use((_req, res) => void res.status(404).json({ error: 'Not found' }));
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const e = err as { type?: string };
    if (e.type === 'entity.parse.failed') {
      res
        .status(400)
        .json(
          req.path.startsWith('/dflow')
            ? { code: 'invalid_request', msg: 'Invalid JSON body' }
            : { error: 'invalid JSON body' },
        );
      return;
    }
    console.error('[kalshi emulator]', err);
    res.status(500).json({ error: 'emulator error' });
  });
  return { app, releaseHanging: faults.release };
}

export async function startKalshiEmulator(opts: KalshiEmulatorOptions = {}): Promise<KalshiEmulator> {
  const host = opts.host ?? '127.0.0.1';
  const state = new KalshiState(opts);
  const { app, releaseHanging } = createKalshiApp(state);
  const { server, url } = await listen(app, host, opts.port);
  const stopDrift = opts.driftEveryMs
    ? startPriceDrift({
        everyMs: opts.driftEveryMs,
        markets: () =>
          [...state.markets.values()]
            .filter((m) => m.status === 'active')
            .map((m) => ({ id: m.ticker, yes: m.lastPrice / 10_000, tick: 0.01 })),
        move: adminPriceMove(`${url}/__admin`),
      })
    : () => undefined;
  return {
    url,
    kalshiUrl: `${url}/trade-api/v2`,
    dflowTradeUrl: `${url}/dflow-trade`,
    dflowMetadataUrl: `${url}/dflow-metadata`,
    proofUrl: `${url}/proof`,
    rpcUrl: `${url}/solana`,
    adminUrl: `${url}/__admin`,
    state,
    close: () =>
      new Promise<void>((resolve, reject) => {
        stopDrift();
        releaseHanging();
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
