import assert from 'node:assert/strict';
import { utcDay } from '../../shared/domains/limits/counters.js';
import { FIXTURES } from '../emulators/kalshi/index.js';
import { testContext } from '../support/context.js';
import { api, registerAgent, type RegisteredAgent } from '../support/http.js';
import { kalshiAdmin, newKalshiEvent } from '../support/venue-emulators.js';

const auth = (agent: RegisteredAgent) => ({ Authorization: `Bearer ${agent.api_key}` });
const importKalshi = (agent: RegisteredAgent, kalshi_url: string) =>
  api().post('/api/sdk/markets/import/kalshi').set(auth(agent)).send({ kalshi_url });
const importEvent = (agent: RegisteredAgent, event_ticker: string) =>
  api().post('/api/sdk/markets/import/kalshi/event').set(auth(agent)).send({ event_ticker });
const get = (agent: RegisteredAgent, path: string) => api().get(path).set(auth(agent));
const eventUrl = (series: string, event: string) =>
  `https://kalshi.com/markets/${series.toLowerCase()}/some-title-slug/${event.toLowerCase()}`;
const quotaKey = (agent: RegisteredAgent) => {
  const { deps } = testContext();
  return `${deps.env.QUEUE_PREFIX}:imports:${agent.agent_id}:${utcDay(new Date())}`;
};

describe('Market imports from Kalshi #integration', () => {
  let agent: RegisteredAgent;
  beforeEach(async () => {
    agent = await registerAgent();
  });

  it('when a bare ticker is imported in any case, then exactly that market is, with the kalshi.md §2.11 keys', async () => {
    const event = await newKalshiEvent([{ yes_sub_title: 'Above 10', yes: 0.42 }]);
    const ticker = event.markets[0]!.ticker;
    const res = await importKalshi(agent, ticker.toLowerCase());
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.success, true);
    assert.equal(res.body.status, 'imported');
    assert.equal(res.body.kalshi_ticker, ticker);
    assert.equal(res.body.import_source, 'kalshi');
    assert.equal(typeof res.body.market_id, 'string');
    assert.match(res.body.question, /^Kalshi test event [0-9A-F]+\? — Above 10$/);
    // The emulator quotes one cent either side of the mid: 0.41 / 0.43.
    assert.equal(res.body.external_price_yes, 0.42);
    assert.ok(Math.abs(res.body.current_probability - 0.42) < 0.011);
    assert.ok(res.body.resolves_at);
    assert.equal(res.body.markets.length, 1);
    assert.equal(res.body.markets[0].kalshi_ticker, ticker);
    assert.equal(res.headers['x-imports-limit'], '10');
    assert.equal(res.headers['x-imports-remaining'], '9');

    const stored = await testContext().deps.models.Market.findById(res.body.market_id).lean();
    assert.ok(stored);
    assert.equal(stored.importSource, 'kalshi');
    assert.deepEqual(stored.venueRef, {
      venue: 'kalshi',
      externalId: ticker,
      yesTokenId: null,
      noTokenId: null,
      negRisk: null,
    });
    assert.equal(stored.eventRef, event.event_ticker);
    assert.equal(stored.outcomeName, 'Above 10');
    assert.equal(stored.externalBestBid, 0.41);
    assert.equal(stored.externalBestAsk, 0.43);
    assert.ok(stored.resolutionCriteria);

    const again = await importKalshi(agent, ticker);
    assert.equal(again.status, 200);
    assert.equal(again.body.status, 'already_exists');
    assert.equal(again.body.market_id, res.body.market_id);
    assert.equal(again.headers['x-imports-remaining'], '9', 're-imports are free');
  });

  it('when an event URL (path or hash form) is imported, then every open outcome becomes a market for one import', async () => {
    const event = await newKalshiEvent([
      { yes_sub_title: '40° or below', yes: 0.2 },
      { yes_sub_title: '41° to 42°', yes: 0.5 },
      { yes_sub_title: '43° or above', yes: 0.3 },
    ]);
    const res = await importKalshi(agent, eventUrl(event.series_ticker, event.event_ticker));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.status, 'imported');
    assert.equal(res.body.markets_imported, 3);
    assert.equal(res.body.event_id, event.event_ticker);
    assert.match(res.body.event_name, /^Kalshi test event /);
    assert.deepEqual(
      res.body.markets.map((m: { kalshi_ticker: string }) => m.kalshi_ticker),
      event.markets.map((m) => m.ticker),
    );
    assert.deepEqual(
      res.body.markets.map((m: { outcome_name: string }) => m.outcome_name),
      ['40° or below', '41° to 42°', '43° or above'],
    );
    assert.equal(res.headers['x-imports-remaining'], '9');

    // The older hash form names the same event: answered from the venue, nothing new, free.
    const hash = await importKalshi(
      agent,
      `https://kalshi.com/markets/${event.series_ticker.toLowerCase()}/some-title#${event.event_ticker.toLowerCase()}`,
    );
    assert.equal(hash.status, 200, JSON.stringify(hash.body));
    assert.equal(hash.body.status, 'already_exists');
    assert.equal(hash.body.markets_imported, 0);
    assert.equal(hash.headers['x-imports-remaining'], '9');
  });

  it('when a market URL (event page + #ticker) or a series URL is imported, then that market, or the open event of the series', async () => {
    const event = await newKalshiEvent([
      { yes_sub_title: 'A', yes: 0.6 },
      { yes_sub_title: 'B', yes: 0.4 },
    ]);
    const second = event.markets[1]!.ticker;
    const one = await importKalshi(
      agent,
      `${eventUrl(event.series_ticker, event.event_ticker)}#${second.toLowerCase()}`,
    );
    assert.equal(one.status, 200, JSON.stringify(one.body));
    assert.deepEqual(
      one.body.markets.map((m: { kalshi_ticker: string }) => m.kalshi_ticker),
      [second],
    );

    const series = await importKalshi(
      agent,
      `https://www.kalshi.com/markets/${event.series_ticker.toLowerCase()}/kalshi-test-series`,
    );
    assert.equal(series.status, 200, JSON.stringify(series.body));
    assert.equal(series.body.event_id, event.event_ticker);
    assert.equal(series.body.markets_imported, 1, 'the sibling not imported yet');
    assert.deepEqual(
      series.body.markets.map((m: { kalshi_ticker: string }) => m.kalshi_ticker).sort(),
      event.markets.map((m) => m.ticker).sort(),
    );
  });

  it('when import/kalshi/event gets an event or a market ticker, then the whole event is imported as one import, skipping closed and decided outcomes', async () => {
    const event = await newKalshiEvent([
      { yes_sub_title: 'Open 1', yes: 0.45 },
      { yes_sub_title: 'Open 2', yes: 0.5 },
      { yes_sub_title: 'Decided', yes: 0.01 },
      { yes_sub_title: 'Closed', yes: 0.04, status: 'closed' },
    ]);
    const res = await importEvent(agent, event.markets[0]!.ticker.toLowerCase());
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.event_id, event.event_ticker);
    assert.equal(res.body.markets_imported, 2);
    assert.equal(res.body.markets_skipped, 2);
    assert.deepEqual(
      res.body.markets.map((m: { kalshi_ticker: string; question: string }) => m.kalshi_ticker),
      [event.markets[0]!.ticker, event.markets[1]!.ticker],
    );
    for (const m of res.body.markets) {
      assert.equal(typeof m.market_id, 'string');
      assert.equal(typeof m.current_probability, 'number');
    }
    const reasons = res.body.skipped.map((s: { kalshi_ticker: string; reason: string }) => [
      s.kalshi_ticker,
      s.reason,
    ]);
    assert.deepEqual(reasons, [
      // The emulator clamps the book to 0.01 / 0.02 around a 1¢ mid.
      [event.markets[2]!.ticker, 'priced at 0.015 on Kalshi: decided in effect'],
      [event.markets[3]!.ticker, 'closed for trading on Kalshi'],
    ]);
    assert.equal(res.headers['x-imports-remaining'], '9', 'an event counts as one import');

    const again = await importEvent(agent, event.event_ticker);
    assert.equal(again.status, 200);
    assert.equal(again.body.status, 'already_exists');
    assert.equal(again.headers['x-imports-remaining'], '9');
  });

  it('when a market has an empty book, then it imports at 0.5 with no external price, and its book is empty', async () => {
    const event = await newKalshiEvent([{ yes_sub_title: 'Nobody quotes', yes: null }]);
    const ticker = event.markets[0]!.ticker;
    const res = await importKalshi(agent, ticker);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.external_price_yes, null);
    assert.equal(res.body.current_probability, 0.5);
    const stored = await testContext().deps.models.Market.findById(res.body.market_id).lean();
    assert.equal(stored!.externalBestBid, null);
    assert.equal(stored!.externalBestAsk, null);
    const price = await get(
      agent,
      `/api/sdk/markets/${res.body.market_id}/executable-price?side=yes&action=buy&amount=10`,
    );
    assert.equal(price.status, 200, JSON.stringify(price.body));
    assert.equal(price.body.success, false);
    assert.equal(price.body.price, null);
  });

  it('when a fixture is served on the legacy integer-cent wire, then it parses to the same values as the current wire', async () => {
    const kalshi = testContext().deps.venues.get('kalshi');
    const key = { externalId: FIXTURES.legacy };
    const legacy = await kalshi.market(key);
    const legacyBooks = [await kalshi.book(key, 'yes'), await kalshi.book(key, 'no')];
    const legacyStatus = (await kalshi.statuses([key])).get(FIXTURES.legacy);
    await kalshiAdmin('POST', `/markets/${FIXTURES.legacy}/wire`, { mode: 'current' });
    try {
      const current = await kalshi.market(key);
      assert.ok(legacy && current);
      assert.deepEqual(legacy, current);
      assert.equal(current.yesPrice, 0.35);
      assert.equal(current.bestBid, 0.34);
      assert.equal(current.bestAsk, 0.36);
      assert.ok(current.volumeTotal > 0);
      assert.deepEqual(legacyBooks, [await kalshi.book(key, 'yes'), await kalshi.book(key, 'no')]);
      assert.equal(legacyBooks[0]!.bids[0]!.price, 0.34);
      assert.equal(legacyBooks[0]!.asks[0]!.price, 0.36);
      assert.deepEqual(legacyStatus, (await kalshi.statuses([key])).get(FIXTURES.legacy));
    } finally {
      await kalshiAdmin('POST', `/markets/${FIXTURES.legacy}/wire`, { mode: 'legacy' });
    }
    // And a fresh pair, one on each wire, imports to the same prices.
    const event = await newKalshiEvent([
      { yes_sub_title: 'legacy', yes: 0.27, wire: 'legacy' },
      { yes_sub_title: 'current', yes: 0.27, wire: 'current' },
    ]);
    const res = await importEvent(agent, event.event_ticker);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const stored = await testContext()
      .deps.models.Market.find({ eventRef: event.event_ticker })
      .sort({ 'venueRef.externalId': 1 })
      .lean();
    assert.equal(stored.length, 2);
    const view = (m: (typeof stored)[number]) => [
      m.externalPriceYes,
      m.externalBestBid,
      m.externalBestAsk,
      m.currentPrice,
      m.volumeTotalMicro,
      m.volume24hMicro,
    ];
    assert.deepEqual(view(stored[0]!), view(stored[1]!));
    assert.equal(stored[0]!.externalPriceYes, 0.27);
  });

  it('when a market was imported, then markets/check finds it by ticker (any case) and URL, and the list by import_source=kalshi', async () => {
    const event = await newKalshiEvent([{ yes_sub_title: 'Checked', yes: 0.5 }]);
    const ticker = event.markets[0]!.ticker;
    const before = await get(agent, `/api/sdk/markets/check?ticker=${ticker.toLowerCase()}`);
    assert.deepEqual(before.body, { exists: false });
    const res = await importKalshi(agent, ticker);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    for (const q of [
      `ticker=${ticker.toLowerCase()}`,
      `ticker=${event.event_ticker}`,
      `url=${encodeURIComponent(eventUrl(event.series_ticker, event.event_ticker))}`,
      `url=${encodeURIComponent(`https://kalshi.com/markets/${event.series_ticker.toLowerCase()}/x#${ticker.toLowerCase()}`)}`,
    ]) {
      const check = await get(agent, `/api/sdk/markets/check?${q}`);
      assert.equal(check.status, 200);
      assert.equal(check.body.exists, true, q);
      assert.equal(check.body.market_id, res.body.market_id, q);
      assert.equal(check.body.status, 'active');
    }
    const listed = await get(agent, '/api/sdk/markets?import_source=kalshi&limit=500');
    assert.equal(listed.status, 200);
    const row = listed.body.markets.find((m: { id: string }) => m.id === res.body.market_id);
    assert.ok(row, 'listed under import_source=kalshi');
    assert.equal(row.kalshi_ticker, ticker);
    assert.equal(row.import_source, 'kalshi');
    assert.ok(listed.body.markets.every((m: { import_source: string }) => m.import_source === 'kalshi'));
  });

  it('when importable Kalshi markets are listed, then open ones above the volume floor come with a url that imports them', async () => {
    const res = await get(
      agent,
      '/api/sdk/markets/importable?venue=kalshi&min_volume=1000&q=federal%20funds',
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.venue, 'kalshi');
    // Only the open binary Fed fixture (24 h volume 9,117): its finalized sibling is not open.
    assert.deepEqual(
      res.body.markets.map((m: { kalshi_ticker: string }) => m.kalshi_ticker),
      [FIXTURES.binary],
    );
    const row = res.body.markets[0];
    assert.equal(row.condition_id, null);
    assert.equal(row.current_price, 0.42);
    assert.ok(row.volume_24h >= 1000);
    assert.equal(row.category, 'Economics');
    const high = await get(
      agent,
      '/api/sdk/markets/importable?venue=kalshi&min_volume=10000&q=federal%20funds',
    );
    assert.deepEqual(high.body.markets, []);
    // Its url names the market itself: importing it imports that one market.
    const imported = await importKalshi(agent, row.url);
    assert.equal(imported.status, 200, JSON.stringify(imported.body));
    assert.equal(imported.body.kalshi_ticker, FIXTURES.binary);
    assert.equal(imported.body.markets.length, 1);
    const after = await get(
      agent,
      '/api/sdk/markets/importable?venue=kalshi&min_volume=1000&q=federal%20funds',
    );
    assert.deepEqual(after.body.markets, [], 'imported markets drop out');
  });

  it('when the ticker is unknown, resolved or malformed, then a 4xx with a fix and no quota used', async () => {
    const unknown = await importKalshi(agent, 'KXNOPE-26JAN01-T1');
    assert.equal(unknown.status, 404, JSON.stringify(unknown.body));
    assert.equal(unknown.body.error_code ?? unknown.body.code, 'market_not_found');
    assert.ok(unknown.body.fix);
    const resolved = await importKalshi(agent, FIXTURES.finalized.toLowerCase());
    assert.equal(resolved.status, 422, JSON.stringify(resolved.body));
    assert.match(resolved.body.error, /resolved on Kalshi/);
    assert.ok(resolved.body.fix);
    // Past the historical cutoff: found through /historical, refused the same way.
    const historical = await importKalshi(agent, FIXTURES.historical);
    assert.equal(historical.status, 422, JSON.stringify(historical.body));
    for (const bad of ['https://evil.test/markets/kxhighny', 'not a ticker!', 'https://kalshi.com/about']) {
      const res = await importKalshi(agent, bad);
      assert.equal(res.status, 422, `${bad}: ${JSON.stringify(res.body)}`);
      assert.ok(res.body.fix, bad);
    }
    const event = await importEvent(agent, 'KXNOPE-26JAN01');
    assert.equal(event.status, 404);
    assert.equal(await testContext().deps.redis.get(quotaKey(agent)), '0');
  });

  it('when the daily quota is used up, then a new Kalshi import is a 429 with x402_url, while re-imports stay free', async () => {
    const done = await newKalshiEvent([{ yes: 0.5 }]);
    const first = await importKalshi(agent, done.markets[0]!.ticker);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    await testContext().deps.redis.set(quotaKey(agent), '10');
    const fresh = await newKalshiEvent([{ yes: 0.5 }, { yes: 0.4 }]);
    for (const res of [
      await importKalshi(agent, fresh.markets[0]!.ticker),
      await importEvent(agent, fresh.event_ticker),
    ]) {
      assert.equal(res.status, 429, JSON.stringify(res.body));
      assert.match(res.body.error, /Daily import limit reached/);
      assert.match(res.body.x402_url, /^https?:\/\/.+\/x402\/api\/sdk\/markets\/import$/);
      assert.equal(res.body.x402_price, '$0.005');
      assert.ok(res.body.fix);
      assert.equal(res.headers['x-imports-remaining'], '0');
      assert.ok(Number(res.headers['retry-after']) > 0);
    }
    const reimport = await importKalshi(agent, done.markets[0]!.ticker.toLowerCase());
    assert.equal(reimport.status, 200);
    assert.equal(reimport.body.status, 'already_exists');
  });

  it('when Kalshi is unreachable, then the import is a 503 venue_unavailable with a fix and costs nothing', async () => {
    const event = await newKalshiEvent([{ yes: 0.5 }]);
    await kalshiAdmin('POST', '/faults', { mode: '500', path_prefix: '/trade-api', count: 20 });
    try {
      const res = await importKalshi(agent, event.markets[0]!.ticker);
      assert.equal(res.status, 503, JSON.stringify(res.body));
      assert.equal(res.body.error_code ?? res.body.code, 'venue_unavailable');
      assert.match(res.body.error, /Kalshi/);
      assert.ok(res.body.fix);
    } finally {
      await kalshiAdmin('DELETE', '/faults');
    }
    assert.equal(await testContext().deps.redis.get(quotaKey(agent)), '0');
  });
});
