import { z } from 'zod';
import { defineVenueModule } from '../../shared/composition/venue-modules.js';
import type { ExtraVenue } from '../../shared/composition/venues.js';
import { registerVenueId } from '../../shared/domains/venues/venue-id.js';
import { FakeExchange } from './fake-exchange.js';
import { FixtureAdapter } from './fixture-adapter.js';
import { fixtureTrading } from './fixture-trading.js';

/**
 * A venue nobody ships, defined entirely under test/: its adapter and trading over an in-memory
 * exchange. The test harness registers it (createDeps `extraVenues`) like any deployment would
 * register its own venue; the tests reach the exchange through `fixtureExchange` to move prices
 * and resolve markets, as the world would on a real venue.
 */
export const FIXTURE_VENUE = registerVenueId('fixture');
export const fixtureExchange = new FakeExchange();

export const fixtureVenue: ExtraVenue = {
  adapter: new FixtureAdapter(FIXTURE_VENUE, fixtureExchange),
  trading: fixtureTrading(FIXTURE_VENUE, fixtureExchange),
};

/**
 * The fixture venue as a `VENUE_MODULES` entry (`test/fixture-venue/index.ts`): no settings of its
 * own; its factory hands the composition root the venue over the same exchange the tests drive.
 */
export const venueModule = defineVenueModule({
  id: FIXTURE_VENUE,
  settings: z.object({}),
  create: () => fixtureVenue,
});
