import assert from 'node:assert/strict';
import { agentWithMarket, makeMarket, trade } from '../support/factories.js';
import { api, type RegisteredAgent } from '../support/http.js';
import { publishedSchema } from '../support/published-schema.js';
import { remarkVenueBoards } from '../../shared/domains/reads/venue-boards.js';
import { testContext } from '../support/context.js';
import {
  asAgent,
  claimedAgent,
  externalTrader,
  importedMarket,
  signedBuy,
} from '../support/polymarket-traders.js';
import { asUser } from '../support/users.js';

/**
 * Real answers of the main read routes checked against /openapi.json, as a generated client checks
 * them: drift between what the service sends and what it publishes fails here, not in a client.
 * Each row: the route's template (as published) and the concrete path to call.
 */
function readRoutes(marketId: string): { template: string; path: string }[] {
  return [
    { template: '/api/sdk/agents/me', path: '/api/sdk/agents/me' },
    { template: '/api/sdk/context/{market_id}', path: `/api/sdk/context/${marketId}` },
    { template: '/api/sdk/context/{market_id}', path: `/api/sdk/context/${marketId}?venue=sim` },
    { template: '/api/sdk/positions', path: '/api/sdk/positions' },
    { template: '/api/sdk/portfolio', path: '/api/sdk/portfolio' },
    { template: '/api/sdk/briefing', path: '/api/sdk/briefing' },
    { template: '/api/sdk/markets', path: '/api/sdk/markets' },
    { template: '/api/sdk/markets/{market_id}', path: `/api/sdk/markets/${marketId}` },
    { template: '/api/sdk/trades', path: '/api/sdk/trades' },
    { template: '/api/sdk/settings', path: '/api/sdk/settings' },
  ];
}

async function checkAll(agent: RegisteredAgent, marketId: string) {
  const doc = (await api().get('/openapi.json').expect(200)).body;
  const schema = publishedSchema(doc);
  const problems: string[] = [];
  for (const { template, path } of readRoutes(marketId)) {
    const res = await api().get(path).set(asAgent(agent));
    assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
    for (const e of schema.conformanceErrors('get', template, res.status, res.body))
      problems.push(`GET ${path}: ${e}`);
  }
  return problems;
}

describe('OpenAPI conformance of real answers #integration', () => {
  it('when a fresh agent reads a market it has no position in, then every read answer matches the published schema', async () => {
    const { agent, market } = await agentWithMarket();
    const problems = await checkAll(agent, market._id);
    assert.deepEqual(problems, []);
  });

  it('when an agent holds a sim position, then every read answer matches the published schema', async () => {
    const { agent, market } = await agentWithMarket();
    const bought = await trade(agent, { market_id: market._id, side: 'yes', amount: 25 });
    assert.equal(bought.body.success, true, JSON.stringify(bought.body));
    await trade(agent, { market_id: (await makeMarket())._id, side: 'no', amount: 5 });
    const problems = await checkAll(agent, market._id);
    assert.deepEqual(problems, []);
  });

  it('when a claimed agent reads, then every read answer and its human’s settings match the published schema', async () => {
    const { agent, token } = await claimedAgent();
    const market = await makeMarket();
    await trade(agent, { market_id: market._id, side: 'no', amount: 3 });
    const problems = await checkAll(agent, market._id);
    const doc = (await api().get('/openapi.json').expect(200)).body;
    const settings = await api().get('/api/sdk/user/settings').set(asUser(token)).expect(200);
    problems.push(
      ...publishedSchema(doc).conformanceErrors('get', '/api/sdk/user/settings', 200, settings.body),
    );
    assert.deepEqual(problems, []);
  });

  it('when a claimed agent holds a Polymarket position in a funded wallet, then its portfolio, briefing, settings and the venue boards match the published schema', async () => {
    const trader = await externalTrader();
    const market = await importedMarket(trader.agent);
    const bought = await signedBuy(trader, market, 10);
    assert.equal(bought.body.success, true, JSON.stringify(bought.body));
    await remarkVenueBoards(testContext().deps.models, new Date());
    const problems = await checkAll(trader.agent, market.marketId);
    const doc = (await api().get('/openapi.json').expect(200)).body;
    const schema = publishedSchema(doc);
    for (const path of ['/api/sdk/portfolio?venue=polymarket', '/api/sdk/portfolio?venue=all']) {
      const res = await api().get(path).set(asAgent(trader.agent)).expect(200);
      assert.equal(typeof res.body.polymarket.balance_checked_at, 'string', 'the wallet was read');
      problems.push(
        ...schema.conformanceErrors('get', '/api/sdk/portfolio', 200, res.body).map((e) => `${path}: ${e}`),
      );
    }
    for (const venue of ['polymarket', 'kalshi', 'sim']) {
      const res = await api().get(`/api/leaderboard/${venue}`).expect(200);
      problems.push(
        ...schema
          .conformanceErrors('get', '/api/leaderboard/{venue}', 200, res.body)
          .map((e) => `${venue}: ${e}`),
      );
    }
    const all = await api().get('/api/leaderboard/all').expect(200);
    problems.push(...schema.conformanceErrors('get', '/api/leaderboard/all', 200, all.body));
    assert.deepEqual(problems, []);
  });
});
