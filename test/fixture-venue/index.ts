import { z } from 'zod';
import { defineVenueModule } from '../../shared/composition/venue-modules.js';
import type { ExtraVenue } from '../../shared/composition/venues.js';
import type { VenueId } from '../../shared/domains/venues/venue-id.js';
import { FakeExchange } from './fake-exchange.js';
import { FixtureAdapter } from './fixture-adapter.js';
import { fixtureTrading } from './fixture-trading.js';

/**
 * A venue nobody ships, defined entirely under test/: its adapter and trading over an in-memory
 * exchange. The test harness registers it (createDeps `extraVenues`), a service process loads it
 * as a `VENUE_MODULES` entry (`venueModule` below); the harness's tests reach the exchange through
 * `fixtureExchange` to move prices and resolve markets, as the world would on a real venue.
 */
// Its id becomes a venue of a process only where the process loads it: the composition root
// registers every adapter it is given (VenueRegistry), here the harness's or the module's.
export const FIXTURE_VENUE = 'fixture' as VenueId;
export const fixtureExchange = new FakeExchange();

export const fixtureVenue: ExtraVenue = {
  adapter: new FixtureAdapter(FIXTURE_VENUE, fixtureExchange),
  trading: fixtureTrading(FIXTURE_VENUE, fixtureExchange),
};

/** The fixture venue's play money, when a deployment loads it as paper (its module's default). */
export const FIXTURE_PLAY_MONEY = { money: 'paper', currency: 'Fixture chips', unit: 'FXC' } as const;

const settings = z.object({
  FIXTURE_VENUE_MONEY: z.enum(['paper', 'real']).default('paper'),
  /** Markets the venue lists from the start, as `<id>=<yes price>` pairs (`fx-rain=0.4,fx-snow=0.7`). */
  FIXTURE_VENUE_MARKETS: z
    .string()
    .default('')
    .transform((v, ctx) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
        .map((pair) => {
          const [id = '', yes = ''] = pair.split('=');
          const price = Number(yes);
          if (!/^[a-z0-9-]+$/.test(id) || !(price > 0 && price < 1))
            ctx.addIssue({ code: 'custom', message: `"${pair}" is not <id>=<price between 0 and 1>` });
          return { id, yes: price };
        }),
    ),
});

/** The question of a market the module lists from its settings (its page slug is derived from it). */
export const seededQuestion = (id: string) => `Fixture market ${id}`;

/**
 * The fixture venue as a `VENUE_MODULES` entry (`test/fixture-venue/index.ts`): a venue of its own
 * exchange in the service's process, play money by default, with the markets its settings list.
 */
export const venueModule = defineVenueModule({
  id: FIXTURE_VENUE,
  settings,
  create: ({ id, settings: { FIXTURE_VENUE_MONEY: money, FIXTURE_VENUE_MARKETS: markets } }) => {
    const exchange = new FakeExchange();
    for (const m of markets) exchange.listMarket(seededQuestion(m.id), m.yes, m.id);
    return {
      adapter: new FixtureAdapter(id, exchange, money === 'paper' ? FIXTURE_PLAY_MONEY : undefined),
      trading: fixtureTrading(id, exchange, money),
    };
  },
});
