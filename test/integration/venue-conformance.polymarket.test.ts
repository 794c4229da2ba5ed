import { Registry } from 'prom-client';
import { PolymarketAdapter } from '../../shared/domains/venues/polymarket/polymarket-adapter.js';
import type { VenueMarketKey } from '../../shared/domains/venues/venue-adapter.js';
import { createVenueMetrics } from '../../shared/infra/http/venue-metrics.js';
import { createLogger } from '../../shared/infra/logger.js';
import { FIXTURES, startPolymarketEmulator } from '../emulators/polymarket/index.js';
import { api } from '../support/http.js';
import { claimedWithRealTrading, importedMarket } from '../support/polymarket-traders.js';
import { asUser } from '../support/users.js';
import { polymarketAdmin } from '../support/venue-emulators.js';
import {
  describeVenueAdapterConformance,
  describeVenueTradingConformance,
} from '../support/venue-conformance.js';

// The shared adapter contract, run against the Polymarket adapter talking to its own emulator on
// loopback (a private one: the test resolves a fixture market). Price moves and resolutions go
// through the emulator's admin API, as a real venue's would happen out of our hands.
describeVenueAdapterConformance('polymarket (emulator)', async () => {
  const emulator = await startPolymarketEmulator({ port: 0 });
  const admin = async (path: string, body: unknown) => {
    const res = await fetch(`${emulator.adminUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`emulator POST ${path}: ${res.status} ${await res.text()}`);
  };
  const known = emulator.state.marketBySlug(FIXTURES.binaryMarket);
  if (!known) throw new Error(`emulator fixture ${FIXTURES.binaryMarket} missing`);
  const knownKey: VenueMarketKey = {
    externalId: known.conditionId,
    yesTokenId: known.tokenIds[0],
    noTokenId: known.tokenIds[1],
  };
  return {
    adapter: new PolymarketAdapter({
      gammaUrl: emulator.gammaUrl,
      clobUrl: emulator.clobUrl,
      dataUrl: emulator.dataUrl,
      timeoutMs: 2000,
      retries: 1,
      breakerFailures: 5,
      breakerCooldownMs: 30_000,
      metrics: createVenueMetrics(new Registry()),
      log: createLogger('silent', 'test'),
    }),
    knownKey,
    unknownKey: { externalId: `0x${'ab'.repeat(32)}` },
    movePrice: (key, yes) => admin(`/markets/${key.externalId}/price`, { yes }),
    resolve: (key, outcome) =>
      admin(`/markets/${key.externalId}/resolve`, { outcome: outcome ? 'yes' : 'no' }),
    teardown: () => emulator.close(),
  };
});

// Trading, through the service and the run's shared emulator: a claimed agent trading from its
// human's managed wallet (created at the claim), funded and approved, so it signs nothing.
describeVenueTradingConformance(
  'polymarket',
  async () => {
    const { agent, token } = await claimedWithRealTrading();
    const settings = await api().get('/api/sdk/settings').set(asUser(token)).expect(200);
    const address = settings.body.wallet_address as string;
    await polymarketAdmin('POST', `/wallets/${address}/fund`, { pusd: 500 });
    await polymarketAdmin('POST', `/wallets/${address}/approve`);
    const { marketId } = await importedMarket(agent);
    return { agent, marketId };
  },
  { live: true },
);
