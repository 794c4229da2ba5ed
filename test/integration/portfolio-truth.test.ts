import assert from 'node:assert/strict';
import { OrderType, Side } from '@polymarket/clob-client-v2';
import { makeMarket, trade } from '../support/factories.js';
import { api, registerAgent } from '../support/http.js';
import { asAgent, externalTrader, importedMarket, polymarketTrade } from '../support/polymarket-traders.js';

const portfolio = (agent: { api_key: string }, venue: string) =>
  api()
    .get(`/api/sdk/portfolio?venue=${venue}`)
    .set(asAgent(agent as never))
    .expect(200);

const near = (a: number, b: number, what: string) =>
  assert.ok(Math.abs(a - b) < 1e-6, `${what}: ${a} vs ${b}`);

describe('portfolio truth #integration', () => {
  it('when an agent trades sim with sources, then pnl_total is the sim P&L in $SIM and by_source counts its trades, including a closed position', async () => {
    const agent = await registerAgent();
    const [m1, m2] = await Promise.all([makeMarket(), makeMarket()]);
    const a = await trade(agent, { market_id: m1._id, side: 'yes', amount: 20, source: 'sdk:alpha' });
    assert.equal(a.body.success, true, JSON.stringify(a.body));
    await trade(agent, { market_id: m1._id, side: 'yes', amount: 10, source: 'sdk:alpha' });
    await trade(agent, { market_id: m2._id, side: 'no', amount: 15, source: 'sdk:beta' });
    // Closes the beta position: its realised P&L stays under beta, its exposure goes.
    const positions = await api().get('/api/sdk/positions').set(asAgent(agent)).expect(200);
    const beta = positions.body.positions.find((p: { market_id: string }) => p.market_id === m2._id);
    const sold = await trade(agent, {
      market_id: m2._id,
      side: 'no',
      action: 'sell',
      shares: beta.shares_no,
      source: 'sdk:beta',
    });
    assert.equal(sold.body.success, true, JSON.stringify(sold.body));

    for (const venue of ['all', 'sim']) {
      const res = await portfolio(agent, venue);
      assert.equal(res.body.pnl_currency, '$SIM');
      near(res.body.pnl_total, res.body.sim.pnl, `${venue}: pnl_total is the sim bucket's pnl`);
      near(res.body.pnl_total, res.body.sim_pnl, `${venue}: and sim_pnl`);
      assert.equal(res.body.by_source['sdk:alpha'].trade_count, 2);
      assert.equal(res.body.by_source['sdk:alpha'].positions, 1);
      assert.equal(res.body.by_source['sdk:beta'].trade_count, 2, 'the buy and the sell');
      assert.equal(res.body.by_source['sdk:beta'].positions, 0);
      assert.equal(res.body.by_source['sdk:beta'].exposure, 0);
      assert.ok(res.body.by_source['sdk:beta'].realized_pnl < 0, 'a round trip on the book loses the spread');
      near(
        res.body.by_source['sdk:beta'].realized_pnl,
        -(15 - sold.body.cost),
        'beta realised = proceeds - cost',
      );
      near(res.body.pnl_24h, res.body.by_source['sdk:beta'].realized_pnl, 'realised today');
    }
    const none = await portfolio(agent, 'polymarket');
    assert.equal(none.body.pnl_total, 0);
    assert.equal(none.body.pnl_currency, 'USDC');
    assert.deepEqual(none.body.by_source, {});
  });

  it('when an agent holds a Polymarket position, then pnl_total (venue=polymarket and all) is that venue’s realised + marked P&L in dollars, and its source’s trade_count counts the fill; sim stays apart', async () => {
    const trader = await externalTrader();
    const market = await importedMarket(trader.agent);
    const bought = await polymarketTrade(trader.agent, {
      market_id: market.marketId,
      side: 'yes',
      amount: 10,
      source: 'sdk:live',
      order_type: OrderType.FAK,
      signed_order: await trader.clob.createMarketOrder({
        tokenID: market.yes,
        amount: 10,
        side: Side.BUY,
        price: 0.6,
      }),
    }).expect(200);
    assert.equal(bought.body.success, true, JSON.stringify(bought.body));
    const sim = await makeMarket();
    const simBuy = await trade(trader.agent, {
      market_id: sim._id,
      side: 'yes',
      amount: 30,
      source: 'sdk:paper',
    });
    assert.equal(simBuy.body.success, true, JSON.stringify(simBuy.body));

    const pm = await portfolio(trader.agent, 'polymarket');
    assert.equal(pm.body.pnl_currency, 'USDC');
    near(pm.body.pnl_total, pm.body.polymarket.pnl, 'pnl_total is the polymarket bucket’s pnl');
    const expected = bought.body.shares_bought * 0.55 - bought.body.cost;
    near(pm.body.pnl_total, Math.round(expected * 1e6) / 1e6, 'marked at the venue’s 0.55 less the cost');
    assert.equal(pm.body.by_source['sdk:live'].trade_count, 1);
    assert.equal(pm.body.by_source['sdk:live'].positions, 1);
    assert.equal(pm.body.by_source['sdk:paper'], undefined, 'sim sources are not in the Polymarket view');

    const all = await portfolio(trader.agent, 'all');
    assert.equal(all.body.pnl_currency, 'USDC', 'with a real position, the flat P&L is the real venues’');
    near(all.body.pnl_total, pm.body.pnl_total, 'dollars only: $SIM is not added');
    assert.equal(all.body.by_source['sdk:live'].trade_count, 1);
    assert.notEqual(all.body.sim, null);
    near(all.body.sim_pnl, all.body.sim.pnl, 'sim_pnl stays sim’s');

    const simOnly = await portfolio(trader.agent, 'sim');
    assert.equal(simOnly.body.pnl_currency, '$SIM');
    near(simOnly.body.pnl_total, simOnly.body.sim.pnl, 'the sim view');
    assert.equal(simOnly.body.by_source['sdk:paper'].trade_count, 1);
    assert.equal(simOnly.body.by_source['sdk:live'], undefined);
  });
});
