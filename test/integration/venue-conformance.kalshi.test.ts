import { Registry } from 'prom-client';
import { KalshiAdapter } from '../../shared/domains/venues/kalshi/kalshi-adapter.js';
import { createVenueMetrics } from '../../shared/infra/http/venue-metrics.js';
import { createLogger } from '../../shared/infra/logger.js';
import { FIXTURES, startKalshiEmulator } from '../emulators/kalshi/index.js';
import { importedKalshiMarket, kalshiTrader } from '../support/kalshi-traders.js';
import {
  describeVenueAdapterConformance,
  describeVenueTradingConformance,
} from '../support/venue-conformance.js';

// The shared adapter contract, run against the Kalshi adapter talking to its own emulator on
// loopback (a private one: the test resolves a fixture market). Price moves and resolutions go
// through the emulator's admin API, as a real venue's would happen out of our hands.
describeVenueAdapterConformance('kalshi (emulator)', async () => {
  const emulator = await startKalshiEmulator({ port: 0 });
  const admin = async (path: string, body: unknown) => {
    const res = await fetch(`${emulator.adminUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`emulator POST ${path}: ${res.status} ${await res.text()}`);
  };
  return {
    adapter: new KalshiAdapter({
      baseUrl: emulator.kalshiUrl,
      timeoutMs: 2000,
      retries: 1,
      breakerFailures: 5,
      breakerCooldownMs: 30_000,
      metrics: createVenueMetrics(new Registry()),
      log: createLogger('silent', 'test'),
    }),
    knownKey: { externalId: FIXTURES.binary },
    unknownKey: { externalId: 'KXNOPE-26DEC-T1' },
    movePrice: (key, yes) => admin(`/markets/${key.externalId}/price`, { yes }),
    resolve: (key, outcome) =>
      admin(`/markets/${key.externalId}/lifecycle`, { status: 'finalized', result: outcome ? 'yes' : 'no' }),
    teardown: () => emulator.close(),
  };
});

// Kalshi orders are signed by the agent's Solana wallet (quote and submit endpoints, covered by
// kalshi-trading.test.ts): through POST /api/sdk/trade only dry runs are priced.
describeVenueTradingConformance(
  'kalshi',
  async () => {
    const { agent } = await kalshiTrader();
    const { marketId } = await importedKalshiMarket(agent, 0.4);
    return { agent, marketId };
  },
  { live: false },
);
