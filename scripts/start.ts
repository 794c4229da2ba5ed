// `npm start`: API + workers + scheduler in one process, on the embedded default (own Redis and
// MongoDB-wire server under DATA_DIR) unless REDIS_URL / MONGODB_URI point elsewhere.
// `VENUES=emulated npm start` also starts the Polymarket emulator (with its Polygon JSON-RPC) and
// the Kalshi emulator (Kalshi, DFlow, Proof, Solana RPC) and the Binance market-data emulator (the price
// path the fast markets resolve by) on loopback and points the adapters at them: the offline demo of the real-venue flows (the emulator is a test double, loaded
// only here and only then).
import { Wallet } from 'ethers';
import { apiRole } from '../api/server.js';
import { jobsRole } from '../jobs/main.js';
import { loadEnv, publicBaseUrl } from '../shared/infra/config/env.js';
import { resolveOperatorToken } from '../shared/infra/operator-token.js';
import { runProcess } from '../shared/composition/run-process.js';
import { workersRole } from '../workers/main.js';

/** The part of test/emulators/polymarket this script uses. */
interface EmulatorModule {
  startPolymarketEmulator(opts: { port: number; driftEveryMs?: number }): Promise<{
    url: string;
    adminUrl: string;
    gammaUrl: string;
    clobUrl: string;
    dataUrl: string;
    rpcUrl: string;
    relayerUrl: string;
  }>;
  RELAYER_BUILDER_CREDENTIALS: { key: string; secret: string; passphrase: string };
}

/** The part of test/emulators/kalshi this script uses. */
interface KalshiEmulatorModule {
  startKalshiEmulator(opts: { port: number; driftEveryMs?: number }): Promise<{
    url: string;
    adminUrl: string;
    kalshiUrl: string;
    dflowTradeUrl: string;
    dflowMetadataUrl: string;
    proofUrl: string;
    rpcUrl: string;
  }>;
}

/** The part of test/emulators/binance this script uses. */
interface BinanceEmulatorModule {
  startBinanceEmulator(opts: { port: number }): Promise<{ url: string }>;
}

/** The emulated venues' prices wander this often, so imported markets move and trades print. */
const EMULATED_DRIFT_MS = 10_000;

const emulated = await (async () => {
  let venues: string;
  try {
    venues = loadEnv().VENUES;
  } catch {
    return null; // runProcess reports the configuration problem
  }
  if (venues !== 'emulated') return null;
  // A path in a variable: the production build (and its image, which has no test/) never compiles it.
  const emulatorModule = '../test/emulators/polymarket/index.js';
  const { startPolymarketEmulator, RELAYER_BUILDER_CREDENTIALS } = (await import(
    emulatorModule
  )) as EmulatorModule;
  const polymarket = await startPolymarketEmulator({ port: 0, driftEveryMs: EMULATED_DRIFT_MS });
  process.env.POLYMARKET_GAMMA_URL = polymarket.gammaUrl;
  process.env.POLYMARKET_CLOB_URL = polymarket.clobUrl;
  process.env.POLYMARKET_DATA_URL = polymarket.dataUrl;
  // The emulated Polygon node shares the emulator's ledger: approvals and redemptions sent there
  // are what the emulated CLOB sees.
  process.env.POLYGON_RPC_URL = polymarket.rpcUrl;
  // Deposit wallets: the emulated relayer, with the builder key it accepts.
  process.env.POLYMARKET_RELAYER_URL = polymarket.relayerUrl;
  process.env.POLYMARKET_BUILDER_API_KEY = RELAYER_BUILDER_CREDENTIALS.key;
  process.env.POLYMARKET_BUILDER_SECRET = RELAYER_BUILDER_CREDENTIALS.secret;
  process.env.POLYMARKET_BUILDER_PASSPHRASE = RELAYER_BUILDER_CREDENTIALS.passphrase;
  // Managed wallets' approvals: the operator's gas tank, funded on the emulated chain (unless set).
  if (!process.env.POLYGON_GAS_SPONSOR_KEY) {
    const sponsor = Wallet.createRandom();
    const funded = await fetch(`${polymarket.adminUrl}/polygon/accounts/${sponsor.address}/fund`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ pol: 1_000_000 }),
    });
    if (funded.ok) process.env.POLYGON_GAS_SPONSOR_KEY = sponsor.privateKey;
  }
  const kalshiModule = '../test/emulators/kalshi/index.js';
  const { startKalshiEmulator } = (await import(kalshiModule)) as KalshiEmulatorModule;
  const kalshi = await startKalshiEmulator({ port: 0, driftEveryMs: EMULATED_DRIFT_MS });
  process.env.KALSHI_BASE_URL = kalshi.kalshiUrl;
  process.env.DFLOW_TRADE_API_URL = kalshi.dflowTradeUrl;
  process.env.DFLOW_METADATA_API_URL = kalshi.dflowMetadataUrl;
  process.env.DFLOW_PROOF_API_URL = kalshi.proofUrl;
  process.env.SOLANA_RPC_URL = kalshi.rpcUrl;
  const binanceModule = '../test/emulators/binance/index.js';
  const { startBinanceEmulator } = (await import(binanceModule)) as BinanceEmulatorModule;
  const binance = await startBinanceEmulator({ port: 0 });
  process.env.BINANCE_BASE_URL = binance.url;
  return { ...polymarket, kalshi, binance };
})();

const proc = await runProcess('service', [apiRole, workersRole, jobsRole], { embedded: true });
const base = publicBaseUrl(proc.env);
const operator = resolveOperatorToken(proc.env);
const lines = [
  '',
  `  Agent trading service is up: ${base}`,
  `  Dashboard:        ${base}/   (public, read-only: markets, price charts, leaderboard)`,
  `  API docs:         ${base}/docs   (OpenAPI: ${base}/openapi.json)`,
  `  Operator console: ${base}/admin   (sign in with the operator token; queues at ${base}/admin/queues)`,
  `  Readiness:        ${base}/healthz/ready`,
  ...(proc.infrastructure?.started ?? []).map((s) => `  Started ${s}`),
  ...(emulated
    ? [
        `  Venues: EMULATED (offline demo). Polymarket emulator at ${emulated.url}, Polygon RPC at ${emulated.rpcUrl}`,
        `    drive it: POST ${emulated.adminUrl}/markets/<condition_id>/price {"yes":0.63}, …/resolve {"outcome":"yes"}`,
        `  Kalshi emulator (Kalshi, DFlow, Proof, Solana RPC) at ${emulated.kalshi.url}, Solana RPC at ${emulated.kalshi.rpcUrl}`,
        `    drive it: POST ${emulated.kalshi.adminUrl}/kyc/<solana_address>, …/wallets/<address>/fund {"usdc":1000,"sol":1}, …/markets/<ticker>/lifecycle {"status":"finalized","result":"yes"}`,
        `  Binance emulator (klines of the price path the crypto fast markets resolve by) at ${emulated.binance.url}`,
      ]
    : [
        `  Venues: live (Polymarket at ${proc.env.POLYMARKET_GAMMA_URL}); health at ${base}/api/admin/venues`,
      ]),
  operator.generated
    ? `  Operator token (generated into ${operator.file}; shown only now): ${operator.token}`
    : operator.file
      ? `  Operator token: in ${operator.file}`
      : '  Operator token: from OPERATOR_TOKEN',
  '  Ctrl-C stops everything gracefully.',
  '',
];
console.log(lines.join('\n'));
