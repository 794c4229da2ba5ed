import { api, type RegisteredAgent } from '../support/http.js';
import { asAgent } from '../support/polymarket-traders.js';
import { FIXTURE_BASE_URL } from './fixture-adapter.js';
import { FIXTURE_VENUE } from './index.js';

/** What an agent sends to import a fixture market: the generic import, with the market's page URL. */
export const importFixtureMarket = (agent: RegisteredAgent, slug: string) =>
  api()
    .post('/api/sdk/markets/import/venue')
    .set(asAgent(agent))
    .send({ venue: FIXTURE_VENUE, url: `${FIXTURE_BASE_URL}/markets/${slug}` })
    .expect(200);

/** `POST /api/sdk/trade` on the fixture venue. */
export const fixtureTrade = (agent: RegisteredAgent, body: Record<string, unknown>) =>
  api()
    .post('/api/sdk/trade')
    .set(asAgent(agent))
    .send({ venue: FIXTURE_VENUE, side: 'yes', ...body })
    .expect(200);
