import assert from 'node:assert/strict';
import { importFastMarkets } from '../../shared/domains/venue-sync/import-fast-markets.js';
import { testContext } from '../support/context.js';
import { makeMarket, trade } from '../support/factories.js';
import { api, registerAgent, type RegisteredAgent } from '../support/http.js';
import { newPolymarketEvent, polymarketAdmin, polymarketEventUrl } from '../support/venue-emulators.js';

const get = (agent: RegisteredAgent, path: string) =>
  api().get(path).set('Authorization', `Bearer ${agent.api_key}`);

describe('Venue reads: executable prices, wallet positions, fast markets #integration', () => {
  let agent: RegisteredAgent;
  beforeEach(async () => {
    agent = await registerAgent();
    await polymarketAdmin('DELETE', '/faults');
  });
  after(() => polymarketAdmin('DELETE', '/faults'));

  it('when a sim market is asked for an executable price, then it is the LMSR fill a dry run of that size gets', async () => {
    const m = await makeMarket({ p0: 0.5 });
    const res = await get(agent, `/api/sdk/markets/${m._id}/executable-price?side=yes&action=buy&amount=50`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.success, true);
    assert.equal(res.body.source, 'lmsr');
    const dry = await trade(agent, { market_id: m._id, side: 'yes', amount: 50, dry_run: true });
    assert.ok(
      Math.abs(res.body.shares - dry.body.shares_bought) < 1e-5,
      `${res.body.shares} vs ${dry.body.shares_bought}`,
    );
    assert.ok(res.body.avg_price > 0.5 && res.body.avg_price < res.body.worst_price + 1e-9);
  });

  it('when a venue the market is not on is asked for, then 422 naming the venues it is on', async () => {
    const m = await makeMarket({ p0: 0.5 });
    const res = await get(agent, `/api/sdk/markets/${m._id}/executable-price?side=yes&venue=polymarket`);
    assert.equal(res.status, 422);
    assert.match(res.body.fix, /venue=sim/);
  });

  it('when an imported market is asked for an executable price, then the venue book is walked for the size, with the buffer on the tick grid', async () => {
    const event = await newPolymarketEvent(['Yes', 'No'], [0.4]);
    const imported = await api()
      .post('/api/sdk/markets/import')
      .set('Authorization', `Bearer ${agent.api_key}`)
      .send({ polymarket_url: polymarketEventUrl(event.event_slug) });
    const id = imported.body.market_id as string;
    const top = await get(agent, `/api/sdk/markets/${id}/executable-price?side=yes&action=buy`);
    assert.equal(top.body.success, true, JSON.stringify(top.body));
    assert.equal(top.body.source, 'orderbook');
    assert.ok(top.body.price > 0.4 && top.body.price < 0.45, `best ask ${top.body.price}`);
    const big = await get(
      agent,
      `/api/sdk/markets/${id}/executable-price?side=yes&action=buy&amount=5000&apply_buffer=true`,
    );
    assert.ok(big.body.worst_price >= top.body.price, 'a larger order reaches deeper levels');
    assert.ok(Math.abs(big.body.price - (big.body.worst_price + 0.01)) < 1e-9, 'one tick of buffer');
    const sell = await get(agent, `/api/sdk/markets/${id}/executable-price?side=no&action=sell&shares=10`);
    assert.equal(sell.body.success, true);
    assert.ok(sell.body.price > 0.5 && sell.body.price < 0.6, `NO best bid ${sell.body.price}`);

    await polymarketAdmin('POST', '/faults', { mode: '500', path_prefix: '/clob', count: 2 });
    const down = await get(agent, `/api/sdk/markets/${id}/executable-price?side=yes&action=buy`);
    assert.equal(down.status, 200);
    assert.equal(down.body.success, false);
    assert.equal(down.body.price, null);
  });

  it('when a wallet holds Polymarket positions, then they are listed with the spec fields and the service market_id where imported, cached 30 s', async () => {
    const event = await newPolymarketEvent(['Yes', 'No'], [0.3]);
    const wallet = `0x${'ab'.repeat(20)}`;
    const m = event.markets[0]!;
    await polymarketAdmin('POST', '/positions', {
      user: wallet,
      token_id: m.token_ids[0],
      size: 120,
      avgPrice: 0.25,
    });
    const imported = await api()
      .post('/api/sdk/markets/import')
      .set('Authorization', `Bearer ${agent.api_key}`)
      .send({ polymarket_url: polymarketEventUrl(event.event_slug) });
    const res = await get(agent, `/api/sdk/wallet/${wallet}/positions`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.wallet_address, wallet);
    assert.equal(res.body.position_count, 1);
    const p = res.body.positions[0];
    assert.equal(p.condition_id, m.condition_id);
    assert.equal(p.token_id, m.token_ids[0]);
    assert.equal(p.shares, 120);
    assert.equal(p.side, 'yes');
    assert.equal(typeof p.market_title, 'string');
    assert.equal(typeof p.market_slug, 'string');
    assert.ok(Math.abs(p.current_price - 0.3) < 0.02);
    assert.ok(Math.abs(p.current_value - 120 * p.current_price) < 0.01);
    assert.equal(p.market_id, imported.body.market_id);
    assert.ok(Math.abs(res.body.total_value - p.current_value) < 1e-6);

    await polymarketAdmin('POST', '/positions', {
      user: wallet,
      token_id: m.token_ids[0],
      size: 0,
      avgPrice: 0,
    });
    const cached = await get(agent, `/api/sdk/wallet/${wallet}/positions`);
    assert.equal(cached.body.position_count, 1, 'served from the 30 s cache');

    const bad = await get(agent, '/api/sdk/wallet/not-a-wallet/positions');
    assert.equal(bad.status, 422);
  });

  it('when the venue is down, then wallet positions and importable markets answer 503 venue_unavailable with a fix', async () => {
    await polymarketAdmin('POST', '/faults', { mode: '500', count: 6 });
    const wallet = `0x${'cd'.repeat(20)}`;
    for (const path of [`/api/sdk/wallet/${wallet}/positions`, '/api/sdk/markets/importable']) {
      const res = await get(agent, path);
      assert.equal(res.status, 503, `${path}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error_code, 'venue_unavailable');
      assert.ok(res.body.fix);
      assert.equal(res.body.retryable, true);
    }
  });

  it('when fast markets are listed, then each row has the fields the Python client parses (client-contract §5.1, §5.5)', async () => {
    await importFastMarkets(testContext().deps);
    const res = await get(agent, '/api/sdk/fast-markets?asset=BTC&window=15m&venue=polymarket&limit=10');
    assert.equal(res.status, 200);
    assert.ok(res.body.markets.length >= 1);
    for (const m of res.body.markets) {
      assert.equal(typeof m.id, 'string');
      assert.match(m.question, /Bitcoin Up or Down/);
      assert.equal(m.status, 'active');
      assert.equal(typeof m.current_probability, 'number');
      assert.equal(m.import_source, 'polymarket');
      assert.equal(typeof m.external_price_yes, 'number');
      assert.equal(typeof m.resolves_at, 'string');
      assert.equal(typeof m.opens_at, 'string');
      assert.equal(typeof m.is_live_now, 'boolean');
      assert.equal(typeof m.spread_cents, 'number');
      assert.ok(['tight', 'moderate', 'wide'].includes(m.liquidity_tier));
      assert.match(m.polymarket_token_id, /^\d+$/);
      assert.match(m.polymarket_no_token_id, /^\d+$/);
      assert.match(m.polymarket_id, /^0x[0-9a-f]{64}$/);
      assert.equal(typeof m.polymarket_neg_risk, 'boolean');
      assert.equal(m.window, '15m');
      assert.equal(m.is_orderbook_open, true);
    }
  });
});
