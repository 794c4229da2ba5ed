import assert from 'node:assert/strict';
import { z } from 'zod';
import {
  createModuleVenue,
  defineVenueModule,
  loadVenueModules,
} from '../../shared/composition/venue-modules.js';
import { loadEnv } from '../../shared/infra/config/env.js';
import { testContext } from '../support/context.js';
import { FIXTURE_VENUE, fixtureVenue } from '../fixture-venue/index.js';

const context = () => ({ log: testContext().deps.log, metrics: testContext().deps.metrics });

describe('venue modules (VENUE_MODULES) #integration', () => {
  it('when VENUE_MODULES lists the fixture venue by its path from the project root, then its factory builds the venue', async () => {
    const env = loadEnv({ VENUE_MODULES: ' test/fixture-venue/index.ts ,' });
    assert.deepEqual(env.VENUE_MODULES, ['test/fixture-venue/index.ts']);
    const venues = await loadVenueModules(env, { source: {}, ...context() });
    assert.equal(venues.length, 1);
    assert.equal(venues[0]!.adapter.id, FIXTURE_VENUE);
    assert.equal(venues[0]!.trading.venue, FIXTURE_VENUE);
  });

  it('when VENUE_MODULES is unset, then no module is loaded', async () => {
    assert.deepEqual(await loadVenueModules(loadEnv({}), { source: {}, ...context() }), []);
  });

  it('when a listed module exports no venueModule, then loading stops naming the path', async () => {
    const env = loadEnv({ VENUE_MODULES: 'test/fixture-venue/fake-exchange.ts' });
    await assert.rejects(
      loadVenueModules(env, { source: {}, ...context() }),
      /VENUE_MODULES: test\/fixture-venue\/fake-exchange\.ts exports no venueModule/,
    );
  });

  // The id is the fixture's, registered by the harness already: a new id would stay a venue of the
  // whole test process without an adapter behind it.
  it("when a module's settings fail its own schema, then it is refused naming the venue and the setting; when they pass, its factory receives them parsed with the process's metrics and a venue HTTP client", () => {
    const seen: unknown[] = [];
    const module = defineVenueModule({
      id: FIXTURE_VENUE,
      settings: z.object({ MODULAR_BASE_URL: z.url(), MODULAR_LIMIT: z.coerce.number().int().default(3) }),
      create: (ctx) => {
        seen.push(
          ctx.settings,
          ctx.id,
          ctx.http(ctx.settings.MODULAR_BASE_URL).baseUrl,
          !!ctx.metrics.registry,
        );
        return { adapter: { ...fixtureVenue.adapter, id: ctx.id }, trading: fixtureVenue.trading };
      },
    });
    assert.throws(
      () => createModuleVenue(module, { env: loadEnv({}), source: {}, ...context() }),
      /VENUE_MODULES: venue fixture has bad settings: MODULAR_BASE_URL: /,
    );
    createModuleVenue(module, {
      env: loadEnv({}),
      source: { MODULAR_BASE_URL: 'https://modular.example/api' },
      ...context(),
    });
    assert.deepEqual(seen, [
      { MODULAR_BASE_URL: 'https://modular.example/api', MODULAR_LIMIT: 3 },
      FIXTURE_VENUE,
      'https://modular.example/api',
      true,
    ]);
  });
});
