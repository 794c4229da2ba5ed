import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { utcDay } from '../../shared/domains/limits/counters.js';
import { testContext } from '../support/context.js';
import { api, registerAgent, type RegisteredAgent } from '../support/http.js';
import {
  newPolymarketEvent,
  polymarketAdmin,
  polymarketEventUrl,
  type EmulatedEvent,
} from '../support/venue-emulators.js';

const importMarket = (agent: RegisteredAgent, body: Record<string, unknown>) =>
  api().post('/api/sdk/markets/import').set('Authorization', `Bearer ${agent.api_key}`).send(body);
const get = (agent: RegisteredAgent, path: string) =>
  api().get(path).set('Authorization', `Bearer ${agent.api_key}`);

describe('Market imports from Polymarket #integration', () => {
  let agent: RegisteredAgent;
  beforeEach(async () => {
    agent = await registerAgent();
  });

  it('when an event URL is imported, then each outcome becomes a market with its outcome name, price and venue ids', async () => {
    const event = await newPolymarketEvent(['Alice', 'Bob', 'Carol', 'Dan'], [0.4, 0.3, 0.2, 0.1]);
    const res = await importMarket(agent, { polymarket_url: polymarketEventUrl(event.event_slug) });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.success, true);
    assert.equal(res.body.status, 'imported');
    assert.equal(res.body.markets_imported, 4);
    assert.equal(res.body.markets_skipped, 0);
    assert.equal(res.body.event_id, event.event_id);
    assert.equal(res.headers['x-imports-limit'], '10');
    assert.equal(res.headers['x-imports-remaining'], '9');
    assert.deepEqual(
      res.body.markets.map((m: { outcome_name: string }) => m.outcome_name),
      ['Alice', 'Bob', 'Carol', 'Dan'],
    );
    const first = event.markets[0]!;
    const stored = await testContext().deps.models.Market.findById(res.body.markets[0].market_id).lean();
    assert.ok(stored);
    assert.equal(stored.importSource, 'polymarket');
    assert.deepEqual(stored.venueRef, {
      venue: 'polymarket',
      externalId: first.condition_id,
      yesTokenId: first.token_ids[0],
      noTokenId: first.token_ids[1],
      negRisk: true,
    });
    assert.equal(stored.outcomeName, 'Alice');
    assert.ok(Math.abs(stored.currentPrice - 0.4) < 0.011, `price ${stored.currentPrice}`);
    assert.notEqual(stored._id, first.condition_id);
    assert.match(stored._id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);

    const listed = await get(agent, '/api/sdk/markets?venue=polymarket&limit=500');
    const ids = listed.body.markets.map((m: { id: string }) => m.id);
    for (const m of res.body.markets) assert.ok(ids.includes(m.market_id));
  });

  it('when a market URL is imported, then exactly that market is, with the client-contract keys', async () => {
    const event = await newPolymarketEvent(['Yes', 'No'], [0.62]);
    const res = await importMarket(agent, {
      polymarket_url: `https://www.polymarket.com/market/${event.markets[0]!.slug}?tid=123`,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    // The Python client reads market_id and status (client-contract §5.6).
    assert.equal(typeof res.body.market_id, 'string');
    assert.equal(res.body.status, 'imported');
    assert.match(res.body.question, /^Test event /);
    assert.equal(res.body.polymarket_id, event.markets[0]!.condition_id);
    assert.equal(res.body.import_source, 'polymarket');
    assert.ok(Math.abs(res.body.current_probability - 0.62) < 0.011);
    assert.equal(res.body.markets.length, 1);
  });

  it('when market_ids names some outcomes, then only those are imported', async () => {
    const event = await newPolymarketEvent(['A', 'B', 'C', 'D', 'E']);
    const wanted = [event.markets[1]!.condition_id, event.markets[3]!.condition_id];
    const res = await importMarket(agent, {
      polymarket_url: polymarketEventUrl(event.event_slug),
      market_ids: wanted,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(
      res.body.markets.map((m: { polymarket_id: string }) => m.polymarket_id),
      wanted,
    );
  });

  it('when an 11-outcome event is imported without market_ids, then the first 10 are, with a warning', async () => {
    const event = await newPolymarketEvent(Array.from({ length: 11 }, (_, i) => `Candidate ${i + 1}`));
    const res = await importMarket(agent, { polymarket_url: polymarketEventUrl(event.event_slug) });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.markets_imported, 10);
    assert.equal(res.body.markets_skipped, 1);
    assert.match(res.body.warning, /first 10/);
    assert.equal(res.body.markets.at(-1).outcome_name, 'Candidate 10');
  });

  it('when the same event is imported again, then it is free: same ids, already_exists, quota headers unchanged', async () => {
    const event = await newPolymarketEvent(['X', 'Y', 'Z']);
    const url = polymarketEventUrl(event.event_slug);
    const first = await importMarket(agent, { polymarket_url: url });
    const again = await importMarket(agent, { polymarket_url: `${url}/` });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.status, 'already_exists');
    assert.equal(again.body.markets_imported, 0);
    assert.deepEqual(
      again.body.markets.map((m: { market_id: string }) => m.market_id),
      first.body.markets.map((m: { market_id: string }) => m.market_id),
    );
    assert.equal(again.headers['x-imports-remaining'], first.headers['x-imports-remaining']);
  });

  it('when one outcome was imported by its own URL, then importing the event brings the others, for one import', async () => {
    const event = await newPolymarketEvent(['One', 'Two', 'Three']);
    const single = await importMarket(agent, {
      polymarket_url: `https://polymarket.com/event/${event.event_slug}/${event.markets[1]!.slug}`,
    });
    assert.equal(single.status, 200, JSON.stringify(single.body));
    assert.equal(single.body.markets_imported, 1);
    assert.equal(single.body.markets[0].outcome_name, 'Two');
    const byMarketUrl = await importMarket(agent, {
      polymarket_url: `https://polymarket.com/market/${event.markets[1]!.slug}`,
    });
    assert.equal(byMarketUrl.body.status, 'already_exists');
    assert.equal(byMarketUrl.body.market_id, single.body.market_id);
    const whole = await importMarket(agent, { polymarket_url: polymarketEventUrl(event.event_slug) });
    assert.equal(whole.status, 200, JSON.stringify(whole.body));
    assert.equal(whole.body.markets_imported, 2);
    assert.deepEqual(
      whole.body.markets.map((m: { outcome_name: string; status: string }) => [m.outcome_name, m.status]),
      [
        ['One', 'imported'],
        ['Two', 'already_exists'],
        ['Three', 'imported'],
      ],
    );
    assert.equal(whole.headers['x-imports-remaining'], '8', 'two imports that created markets');
  });

  it('when an import fails (unknown slug), then it costs no quota', async () => {
    const event = await newPolymarketEvent();
    const first = await importMarket(agent, { polymarket_url: polymarketEventUrl(event.event_slug) });
    const failed = await importMarket(agent, {
      polymarket_url: 'https://polymarket.com/event/not-there-at-all',
    });
    assert.equal(failed.status, 404);
    const again = await importMarket(agent, { polymarket_url: polymarketEventUrl(event.event_slug) });
    assert.equal(again.headers['x-imports-remaining'], first.headers['x-imports-remaining']);
    const { deps } = testContext();
    const used = await deps.redis.get(
      `${deps.env.QUEUE_PREFIX}:imports:${agent.agent_id}:${utcDay(new Date())}`,
    );
    assert.equal(used, '1');
  });

  it('when the daily quota is used up, then a new import is a 429 with x402_url, while re-imports stay free', async () => {
    const done = await newPolymarketEvent();
    await importMarket(agent, { polymarket_url: polymarketEventUrl(done.event_slug) });
    const { deps } = testContext();
    await deps.redis.set(`${deps.env.QUEUE_PREFIX}:imports:${agent.agent_id}:${utcDay(new Date())}`, '10');
    const fresh = await newPolymarketEvent();
    const res = await importMarket(agent, { polymarket_url: polymarketEventUrl(fresh.event_slug) });
    assert.equal(res.status, 429);
    assert.match(res.body.error, /Daily import limit reached/);
    assert.match(res.body.x402_url, /^https?:\/\/.+\/api\/sdk\/markets\/import$/);
    assert.equal(res.body.x402_price, '$0.005');
    const pay = await api().post(new URL(res.body.x402_url).pathname).send({});
    assert.equal(pay.status, 402);
    assert.match(pay.body.fix, /resets at/);
    assert.ok(res.body.fix);
    assert.equal(res.headers['x-imports-remaining'], '0');
    assert.ok(Number(res.headers['retry-after']) > 0);
    const reimport = await importMarket(agent, { polymarket_url: polymarketEventUrl(done.event_slug) });
    assert.equal(reimport.status, 200);
    assert.equal(reimport.body.status, 'already_exists');
  });

  it('when 20 agents import the same event at once, then there is one set of markets and everyone gets its ids', async () => {
    const event = await newPolymarketEvent(['P', 'Q', 'R']);
    const agents = await Promise.all(Array.from({ length: 20 }, () => registerAgent()));
    const answers = await Promise.all(
      agents.map((a) => importMarket(a, { polymarket_url: polymarketEventUrl(event.event_slug) })),
    );
    for (const a of answers) assert.equal(a.status, 200, JSON.stringify(a.body));
    const idSets = new Set(
      answers.map((a) => a.body.markets.map((m: { market_id: string }) => m.market_id).join(',')),
    );
    assert.equal(idSets.size, 1);
    const stored = await testContext().deps.models.Market.countDocuments({
      'venueRef.venue': 'polymarket',
      'venueRef.externalId': { $in: event.markets.map((m) => m.condition_id) },
    });
    assert.equal(stored, 3);
    assert.equal(
      answers.reduce((n, a) => n + a.body.markets_imported, 0),
      3,
    );
  });

  it('when the URL is malformed, foreign or SSRF-shaped, then it is a 422 with a fix and nothing is fetched', async () => {
    await polymarketAdmin('DELETE', '/requests');
    for (const url of [
      'http://127.0.0.1/event/abc',
      'file:///etc/passwd',
      'https://polymarket.com.evil.test/event/abc',
      'https://polymarket.com@evil.test/event/abc',
      'https://evil.test/polymarket.com/event/abc',
      'not a url',
      'https://polymarket.com/event/abc/def/ghi',
      'https://polymarket.com/event/..%2f..%2fadmin',
    ]) {
      const res = await importMarket(agent, { polymarket_url: url });
      assert.equal(res.status, 422, `${url}: ${res.status} ${JSON.stringify(res.body)}`);
      assert.ok(res.body.fix, url);
    }
    assert.deepEqual(await polymarketAdmin('GET', '/requests'), []);
  });

  it('when the slug is unknown or the market closed, then a 4xx with a fix', async () => {
    const unknown = await importMarket(agent, {
      polymarket_url: 'https://polymarket.com/event/no-such-event-anywhere',
    });
    assert.equal(unknown.status, 404, JSON.stringify(unknown.body));
    assert.ok(unknown.body.fix);
    const closed = await importMarket(agent, {
      polymarket_url: polymarketEventUrl('fed-cuts-rates-in-october-2026'),
    });
    assert.equal(closed.status, 422, JSON.stringify(closed.body));
    assert.match(closed.body.fix, /open Polymarket markets/);
  });

  it('when shared=false is sent, then the import works with a deprecation warning', async () => {
    const event = await newPolymarketEvent();
    const res = await importMarket(agent, {
      polymarket_url: polymarketEventUrl(event.event_slug),
      shared: false,
    });
    assert.equal(res.status, 200);
    assert.match(res.body.warning, /shared=false is deprecated/);
  });

  it('when a market was imported, then markets/check finds it by url, condition id and event url (check_market_exists)', async () => {
    const event = await newPolymarketEvent(['Yes', 'No']);
    const before = await get(agent, `/api/sdk/markets/check?condition_id=${event.markets[0]!.condition_id}`);
    assert.deepEqual(before.body, { exists: false });
    const imported = await importMarket(agent, { polymarket_url: polymarketEventUrl(event.event_slug) });
    for (const q of [
      `condition_id=${event.markets[0]!.condition_id}`,
      `url=${encodeURIComponent(polymarketEventUrl(event.event_slug))}`,
      `url=${encodeURIComponent(`https://www.polymarket.com/es/event/${event.event_slug}?x=1`)}`,
    ]) {
      const res = await get(agent, `/api/sdk/markets/check?${q}`);
      assert.equal(res.body.exists, true, q);
      assert.equal(res.body.market_id, imported.body.market_id, q);
      assert.equal(typeof res.body.question, 'string');
      assert.equal(res.body.status, 'active');
    }
  });

  it('when an event the venue tags World Cup is imported, then tags= finds it by the tag’s slug (world-cup) as by its label', async () => {
    const tag = randomBytes(4).toString('hex');
    const event = await polymarketAdmin<EmulatedEvent>('POST', '/events', {
      title: `World Cup match ${tag}: will the favourite win?`,
      slug: `world-cup-match-${tag}`,
      prices: [0.55],
      tags: ['sports', 'soccer', 'worldCup'],
    });
    const res = await importMarket(agent, { polymarket_url: polymarketEventUrl(event.event_slug) });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const stored = await testContext().deps.models.Market.findById(res.body.market_id).lean();
    assert.deepEqual(stored?.tags, ['sports', 'soccer', 'world cup', 'world-cup', 'polymarket']);
    assert.equal(stored?.category, 'Sports');

    // The worldcup copytrader's own query (client-contract §12): its World Cup allowlist.
    for (const tags of ['world-cup', 'world cup', 'sports,world-cup']) {
      const listed = await get(
        agent,
        `/api/sdk/markets?tags=${encodeURIComponent(tags)}&status=active&limit=1000&tradeable_only=false&include_analytics_only=true`,
      );
      assert.equal(listed.status, 200, JSON.stringify(listed.body));
      assert.ok(
        listed.body.markets.some((m: { id: string }) => m.id === res.body.market_id),
        `tags=${tags}: ${JSON.stringify(listed.body).slice(0, 300)}`,
      );
    }
  });

  it('when a market imported before tag slugs were stored is imported again, then it gains the slugs and keeps its labels', async () => {
    const tag = randomBytes(4).toString('hex');
    const event = await polymarketAdmin<EmulatedEvent>('POST', '/events', {
      title: `World Cup match ${tag}: will the underdog win?`,
      slug: `world-cup-underdog-${tag}`,
      prices: [0.3],
      tags: ['sports', 'soccer', 'worldCup'],
    });
    const url = polymarketEventUrl(event.event_slug);
    const first = await importMarket(agent, { polymarket_url: url });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const { Market } = testContext().deps.models;
    // As an earlier version stored it: the labels only, plus one tag the venue no longer gives.
    await Market.updateOne(
      { _id: first.body.market_id },
      { $set: { tags: ['sports', 'soccer', 'world cup', 'polymarket', 'dropped-by-venue'] } },
    );
    const again = await importMarket(agent, { polymarket_url: url });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.market_id, first.body.market_id);
    const stored = await Market.findById(first.body.market_id).lean();
    assert.deepEqual(stored?.tags, [
      'sports',
      'soccer',
      'world cup',
      'polymarket',
      'dropped-by-venue',
      'world-cup',
    ]);
  });

  it('when importable markets are listed, then open venue markets not imported yet come with their url', async () => {
    const res = await get(agent, '/api/sdk/markets/importable?min_volume=1000&limit=100');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.ok(res.body.markets.length > 0);
    const here = await testContext().deps.models.Market.distinct('venueRef.externalId', {
      importSource: 'polymarket',
    });
    for (const m of res.body.markets) {
      assert.equal(typeof m.question, 'string');
      assert.match(m.url, /^https:\/\/polymarket\.com\//);
      assert.match(m.condition_id, /^0x[0-9a-f]{64}$/);
      assert.equal(typeof m.current_price, 'number');
      assert.ok(m.volume_24h >= 1000);
      assert.ok(!here.includes(m.condition_id));
    }
  });

  it('when a path under /api/sdk/markets is misspelt, then 404 "Not found: <method> <path>"', async () => {
    const res = await get(agent, '/api/sdk/markets/importabel');
    assert.equal(res.status, 404);
    assert.equal(res.body.error, 'Not found: GET /api/sdk/markets/importabel');
  });
});
