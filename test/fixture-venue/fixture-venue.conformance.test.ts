import { claimedWithRealTrading } from '../support/polymarket-traders.js';
import {
  describeVenueAdapterConformance,
  describeVenueTradingConformance,
} from '../support/venue-conformance.js';
import { FakeExchange } from './fake-exchange.js';
import { FixtureAdapter } from './fixture-adapter.js';
import { importFixtureMarket } from './fixture-agent.js';
import { FIXTURE_VENUE, fixtureExchange } from './index.js';

// The adapter contract on an exchange of its own: the last case resolves the market it is given.
describeVenueAdapterConformance('fixture', async () => {
  const exchange = new FakeExchange();
  const known = exchange.listMarket('Will the conformance suite pass?', 0.5);
  return {
    adapter: new FixtureAdapter(FIXTURE_VENUE, exchange),
    knownKey: { externalId: known.id },
    unknownKey: { externalId: 'fx-unknown' },
    movePrice: async (key, yes) => exchange.setPrice(key.externalId, yes),
    resolve: async (key, outcome) => exchange.resolve(key.externalId, outcome),
    teardown: async () => undefined,
  };
});

// Trading through the service, on the venue the harness registered: real-money-like, so the agent
// is claimed and its human switched real trading on.
describeVenueTradingConformance(
  FIXTURE_VENUE,
  async () => {
    const { agent } = await claimedWithRealTrading();
    const listed = fixtureExchange.listMarket('Will trading conform?', 0.5);
    const imported = await importFixtureMarket(agent, listed.slug);
    return { agent, marketId: imported.body.market_id as string };
  },
  { live: true },
);
