import assert from 'node:assert/strict';
import { makeMarket, trade } from '../support/factories.js';
import { api, registerAgent } from '../support/http.js';
import { importedMarket } from '../support/polymarket-traders.js';

describe('public market history and source filter #integration', () => {
  it('when a sim market has trades, then GET /api/markets/{id}/history answers without auth: sim prices from creation to now, no external price, one marker per fill', async () => {
    const agent = await registerAgent();
    const market = await makeMarket({ p0: 0.3 });
    for (const side of ['yes', 'yes'])
      assert.equal((await trade(agent, { market_id: market._id, side, amount: 20 })).body.success, true);

    const res = await api().get(`/api/markets/${market._id}/history`).expect(200);

    assert.equal(res.body.market_id, market._id);
    assert.equal(res.body.has_external_price, false);
    assert.equal(res.body.trades.length, 2);
    assert.deepEqual(
      res.body.trades.map((t: { side: string; action: string }) => [t.side, t.action]),
      [
        ['yes', 'buy'],
        ['yes', 'buy'],
      ],
    );
    assert.ok(res.body.trades[1].price_after > res.body.trades[0].price_after, 'buys of YES raise its price');
    const points = res.body.points as { timestamp: string; price_yes: number; external_price_yes: null }[];
    assert.ok(points.length >= 2);
    assert.ok(points.every((p) => p.external_price_yes === null));
    assert.equal(points[0]!.price_yes, 0.3, 'the line starts at the opening price');
    assert.equal(points.at(-1)!.price_yes, res.body.trades[1].price_after, 'and ends at the price now');
  });

  it('when an imported market is asked for, then every point from its creation on carries the venue price', async () => {
    const agent = await registerAgent();
    const imported = await importedMarket(agent, [0.62, 0.38]);
    const res = await api().get(`/api/markets/${imported.marketId}/history?hours=24&interval=15`).expect(200);
    assert.equal(res.body.has_external_price, true);
    assert.ok(res.body.points.length >= 2);
    for (const p of res.body.points) assert.equal(p.external_price_yes, 0.62, JSON.stringify(p));
  });

  it('when the market is unknown or the window too long, then 404 and 422 JSON with a fix', async () => {
    const unknown = await api().get('/api/markets/00000000-0000-4000-8000-000000000000/history').expect(404);
    assert.equal(typeof unknown.body.fix, 'string');
    const tooLong = await api().get('/api/markets/00000000-0000-4000-8000-000000000000/history?hours=500');
    assert.equal(tooLong.status, 422);
  });

  it('when GET /api/markets is filtered by source, then only markets from that source are listed', async () => {
    const agent = await registerAgent();
    await importedMarket(agent);
    await makeMarket();
    for (const source of ['polymarket', 'sim']) {
      const res = await api().get(`/api/markets?source=${source}&limit=200`).expect(200);
      assert.ok(res.body.markets.length > 0, source);
      assert.deepEqual([...new Set(res.body.markets.map((m: { venue: string }) => m.venue))], [source]);
    }
  });
});
