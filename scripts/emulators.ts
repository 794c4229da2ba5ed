// `npm run emulators`: starts the local venue and market-data emulators on loopback for manual runs and for the
// service started against them. Prints the base URLs as the environment variables the service
// reads, and stays up until SIGINT/SIGTERM. Port from EMULATOR_PORT (default 0 = a free port).
import { startKalshiEmulator } from '../test/emulators/kalshi/index.js';
import { RELAYER_BUILDER_CREDENTIALS, startPolymarketEmulator } from '../test/emulators/polymarket/index.js';
import { startBinanceEmulator } from '../test/emulators/binance/index.js';

const port = Number(process.env.EMULATOR_PORT ?? 0);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  console.error(`EMULATOR_PORT must be a port number, got ${process.env.EMULATOR_PORT}`);
  process.exit(1);
}

const host = process.env.EMULATOR_HOST ?? '127.0.0.1';
const polymarket = await startPolymarketEmulator({ port, host });
// Its own free port (or EMULATOR_PORT + 1), so the two never collide.
const kalshi = await startKalshiEmulator({ port: port === 0 ? 0 : port + 1, host });
const binance = await startBinanceEmulator({ port: port === 0 ? 0 : port + 2, host });
console.log(
  [
    '',
    '  Polymarket emulator is up. Use these settings:',
    '',
    `POLYMARKET_GAMMA_URL=${polymarket.gammaUrl}`,
    `POLYMARKET_CLOB_URL=${polymarket.clobUrl}`,
    `POLYMARKET_DATA_URL=${polymarket.dataUrl}`,
    `POLYGON_RPC_URL=${polymarket.rpcUrl}`,
    `POLYMARKET_RELAYER_URL=${polymarket.relayerUrl}`,
    `POLYMARKET_BUILDER_API_KEY=${RELAYER_BUILDER_CREDENTIALS.key}`,
    `POLYMARKET_BUILDER_SECRET=${RELAYER_BUILDER_CREDENTIALS.secret}`,
    `POLYMARKET_BUILDER_PASSPHRASE=${RELAYER_BUILDER_CREDENTIALS.passphrase}`,
    `POLYMARKET_EMULATOR_ADMIN_URL=${polymarket.adminUrl}`,
    '',
    `  Catalogue: ${polymarket.adminUrl}/catalogue   Chain: ${polymarket.adminUrl}/polygon`,
    '',
    '  Kalshi emulator (Kalshi, DFlow, Proof, Solana RPC) is up:',
    '',
    `KALSHI_BASE_URL=${kalshi.kalshiUrl}`,
    `DFLOW_TRADE_API_URL=${kalshi.dflowTradeUrl}`,
    `DFLOW_METADATA_API_URL=${kalshi.dflowMetadataUrl}`,
    `DFLOW_PROOF_API_URL=${kalshi.proofUrl}`,
    `SOLANA_RPC_URL=${kalshi.rpcUrl}`,
    `KALSHI_EMULATOR_ADMIN_URL=${kalshi.adminUrl}`,
    '',
    `  Catalogue: ${kalshi.adminUrl}/catalogue   Docs: test/emulators/kalshi/KALSHI.md`,
    '',
    '  Binance market-data emulator (klines of the price path the fast markets resolve by) is up:',
    '',
    `BINANCE_BASE_URL=${binance.url}`,
    '',
    '  Ctrl-C stops.',
    '',
  ].join('\n'),
);

let stopping = false;
const stop = (signal: string) => {
  if (stopping) return;
  stopping = true;
  console.log(`\n  ${signal}: stopping emulators.`);
  void Promise.all([polymarket.close(), kalshi.close(), binance.close()]).then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
};
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
