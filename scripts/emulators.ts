// `npm run emulators`: starts the local venue emulators on loopback for manual runs and for the
// service started against them. Prints the base URLs as the environment variables the service
// reads, and stays up until SIGINT/SIGTERM. Port from EMULATOR_PORT (default 0 = a free port).
import { startPolymarketEmulator } from '../test/emulators/polymarket/index.js';

const port = Number(process.env.EMULATOR_PORT ?? 0);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  console.error(`EMULATOR_PORT must be a port number, got ${process.env.EMULATOR_PORT}`);
  process.exit(1);
}

const polymarket = await startPolymarketEmulator({ port, host: process.env.EMULATOR_HOST ?? '127.0.0.1' });
console.log(
  [
    '',
    '  Polymarket emulator is up. Use these settings:',
    '',
    `POLYMARKET_GAMMA_URL=${polymarket.gammaUrl}`,
    `POLYMARKET_CLOB_URL=${polymarket.clobUrl}`,
    `POLYMARKET_DATA_URL=${polymarket.dataUrl}`,
    `POLYGON_RPC_URL=${polymarket.rpcUrl}`,
    `POLYMARKET_EMULATOR_ADMIN_URL=${polymarket.adminUrl}`,
    '',
    `  Catalogue: ${polymarket.adminUrl}/catalogue   Chain: ${polymarket.adminUrl}/polygon   Ctrl-C stops.`,
    '',
  ].join('\n'),
);

let stopping = false;
const stop = (signal: string) => {
  if (stopping) return;
  stopping = true;
  console.log(`\n  ${signal}: stopping emulators.`);
  void polymarket.close().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
};
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
