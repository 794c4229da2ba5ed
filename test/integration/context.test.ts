import assert from 'node:assert/strict';
import { makeMarket, trade } from '../support/factories.js';
import { api, registerAgent, type RegisteredAgent } from '../support/http.js';

const context = (agent: RegisteredAgent, marketId: string, query = '') =>
  api().get(`/api/sdk/context/${marketId}${query}`).set('Authorization', `Bearer ${agent.api_key}`);

describe('market context #integration', () => {
  it('when an agent without a position asks, then every block is present with its defaults', async () => {
    const agent = await registerAgent();
    const market = await makeMarket({ p0: 0.4 });
    const res = await context(agent, market._id);
    assert.equal(res.status, 200);
    const { market: m, position, positions, discipline, slippage, edge, recent_trades, warnings } = res.body;
    assert.equal(m.id, market._id);
    assert.equal(m.current_price, 0.4);
    assert.equal(m.price_1h_ago, 0.4);
    assert.equal(m.price_24h_ago, 0.4);
    assert.match(m.time_to_resolution, /^6 days$/);
    assert.equal(m.is_paid, false);
    assert.equal(m.fee_rate_bps, 0);
    assert.equal(typeof m.fee_note, 'string');
    assert.equal(m.spread, 0);
    assert.ok('external_price_yes' in m && 'outcome' in m && 'spread_cents' in m && 'divergence' in m);
    assert.equal(position.has_position, false);
    assert.equal(position.shares, 0);
    assert.deepEqual(positions, { sim: null, polymarket: null, kalshi: null });
    assert.deepEqual(
      { ...discipline, last_action_at: null },
      {
        last_action: null,
        last_action_at: null,
        direction_changes_24h: 0,
        flip_flop_warning: null,
        warning_level: 'none',
      },
    );
    assert.equal(slippage.venue, 'sim');
    const yes = slippage.estimates.filter((e: { side: string }) => e.side === 'yes');
    assert.deepEqual(
      yes.map((e: { amount_usd: number }) => e.amount_usd),
      [10, 50, 100, 250, 500],
    );
    for (let i = 1; i < yes.length; i++)
      assert.ok(yes[i].slippage_pct > yes[i - 1].slippage_pct, 'bigger spends slip more');
    // A fraction of the price (0.0117 for 1.17 %): six published skills compare it with 0.15.
    for (const e of yes as { avg_price: number; slippage_pct: number }[]) {
      assert.ok(e.slippage_pct > 0);
      assert.ok(Math.abs(e.slippage_pct - (e.avg_price / 0.4 - 1)) < 1e-4, JSON.stringify(e));
    }
    assert.equal(edge.base_threshold, 0.05);
    assert.ok(edge.time_factor >= 1);
    // Without my_probability the market is still tradeable: HOLD, not SKIP (the skills read SKIP as
    // "resolved or invalid" and never trade it); it was SKIP before, for an agent without a position.
    assert.equal(edge.recommendation, 'HOLD');
    assert.equal(edge.user_edge, null);
    assert.deepEqual(recent_trades, []);
    assert.deepEqual(warnings, []);
  });

  it('when the market is imported, then spread and spread_cents are the venue’s quoted spread', async () => {
    const agent = await registerAgent();
    const market = await makeMarket({
      p0: 0.41,
      importSource: 'polymarket',
      externalPriceYes: 0.41,
      externalBestBid: 0.4,
      externalBestAsk: 0.43,
      externalSpread: 0.03,
    });
    const res = await context(agent, market._id);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.market.spread, 0.03);
    assert.equal(res.body.market.spread_cents, 3);
  });

  it('when the agent holds a position, then position mirrors the venue, positions.sim is filled and recent trades carry reasoning', async () => {
    const agent = await registerAgent();
    const market = await makeMarket({ p0: 0.5 });
    await trade(agent, { market_id: market._id, side: 'yes', amount: 20, reasoning: 'momentum' });
    const res = await context(agent, market._id);
    assert.equal(res.body.position.has_position, true);
    assert.equal(res.body.position.side, 'yes');
    assert.ok(res.body.position.shares > 39);
    // pnl_pct is a fraction of the cost basis, as the skills read it (not points of percent).
    const { pnl_pct, current_value, cost_basis } = res.body.position;
    assert.notEqual(pnl_pct, 0);
    assert.ok(
      Math.abs(pnl_pct - (current_value - cost_basis) / cost_basis) < 1e-4,
      JSON.stringify(res.body.position),
    );
    assert.equal(res.body.positions.sim.side, 'yes');
    assert.equal(res.body.positions.polymarket, null);
    assert.equal(res.body.recent_trades[0].action, 'buy_yes');
    assert.equal(res.body.recent_trades[0].reasoning, 'momentum');
    assert.equal(res.body.discipline.last_action, 'buy_yes');
    const onPolymarket = await context(agent, market._id, '?venue=polymarket');
    assert.equal(onPolymarket.body.position.has_position, false);
  });

  it('when an agent keeps flipping direction, then the flip-flop warning goes from mild to severe', async () => {
    const agent = await registerAgent();
    const market = await makeMarket({ p0: 0.5 });
    await trade(agent, { market_id: market._id, side: 'yes', amount: 5 });
    await trade(agent, { market_id: market._id, side: 'no', amount: 5 });
    const mild = await context(agent, market._id);
    assert.equal(mild.body.discipline.direction_changes_24h, 1);
    assert.equal(mild.body.discipline.warning_level, 'mild');
    await trade(agent, { market_id: market._id, side: 'yes', amount: 5 });
    await trade(agent, { market_id: market._id, side: 'yes', action: 'sell', shares: 1 });
    const severe = await context(agent, market._id);
    assert.equal(severe.body.discipline.direction_changes_24h, 3);
    assert.equal(severe.body.discipline.warning_level, 'severe');
    assert.ok(severe.body.warnings.some((w: string) => /changed direction 3 times/.test(w)));
  });

  it('when my_probability is given, then edge recommends TRADE above the threshold and HOLD below it, held or not', async () => {
    const agent = await registerAgent();
    const market = await makeMarket({ p0: 0.5 });
    const strong = await context(agent, market._id, '?my_probability=0.8');
    assert.equal(strong.body.edge.recommended_side, 'yes');
    assert.equal(strong.body.edge.user_edge, 0.3);
    assert.equal(strong.body.edge.recommendation, 'TRADE');
    const weakNo = await context(agent, market._id, '?my_probability=0.49');
    assert.equal(weakNo.body.edge.recommended_side, 'no');
    // A small edge on a tradeable market is HOLD (it was SKIP without a position: the skills read SKIP as "resolved").
    assert.equal(weakNo.body.edge.recommendation, 'HOLD');
    await trade(agent, { market_id: market._id, side: 'no', amount: 1 });
    const held = await context(agent, market._id, '?my_probability=0.49');
    assert.equal(held.body.edge.recommendation, 'HOLD');
    for (const bad of ['1.5', '-0.1', 'abc']) {
      const res = await context(agent, market._id, `?my_probability=${bad}`);
      assert.equal(res.status, 422, bad);
      assert.deepEqual(res.body.detail[0].loc, ['query', 'my_probability']);
    }
  });

  it('when the market must not be traded (resolved, closed, its book closed), then edge recommends SKIP whatever the edge', async () => {
    const agent = await registerAgent();
    const resolved = await makeMarket({ p0: 0.5, status: 'resolved', outcome: true, resolvedAt: new Date() });
    const closedBook = await makeMarket({
      p0: 0.5,
      importSource: 'polymarket',
      externalPriceYes: 0.5,
      isOrderbookOpen: false,
      simTradeable: false,
    });
    for (const [m, query] of [
      [resolved, ''],
      [resolved, '?my_probability=0.9'],
      [closedBook, '?venue=polymarket&my_probability=0.9'],
      [closedBook, '?venue=sim'],
    ] as const) {
      const res = await context(agent, m._id, query);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.edge.recommendation, 'SKIP', `${m.status} ${query}`);
    }
    const open = await makeMarket({ p0: 0.5, importSource: 'polymarket', externalPriceYes: 0.5 });
    const onVenue = await context(agent, open._id, '?venue=polymarket&my_probability=0.9');
    assert.equal(onVenue.body.edge.recommendation, 'TRADE');
  });

  it('when an agent asks more than 300 times a minute, then 429 with Retry-After', async function () {
    this.timeout(60_000);
    const agent = await registerAgent();
    const market = await makeMarket();
    const statuses: number[] = [];
    for (let i = 0; i < 301; i += 25) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(25, 301 - i) }, () => context(agent, market._id)),
      );
      statuses.push(...batch.map((r) => r.status));
    }
    assert.equal(statuses.filter((s) => s === 200).length, 300);
    const refused = await context(agent, market._id);
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.headers['retry-after']) >= 1);
    const other = await registerAgent();
    assert.equal((await context(other, market._id)).status, 200, 'the limit is per agent');
  });
});
