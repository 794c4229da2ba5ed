import assert from 'node:assert/strict';
import { testContext } from '../support/context.js';
import { makeMarket, trade } from '../support/factories.js';
import { api, registerAgent, type RegisteredAgent } from '../support/http.js';
import { claimedAgent } from '../support/polymarket-traders.js';
import { claim } from '../support/users.js';

const as = (agent: RegisteredAgent) => ({ Authorization: `Bearer ${agent.api_key}` });
const state = (agent: RegisteredAgent, slug: string) =>
  api().get(`/api/sdk/autoresearch/state?skill_slug=${slug}`).set(as(agent));
const experiment = (agent: RegisteredAgent, body: Record<string, unknown>) =>
  api()
    .post('/api/sdk/autoresearch/experiments')
    .set(as(agent))
    .send({
      skill_slug: 'tuner',
      segment: 0,
      metric_name: 'loss',
      metric_unit: '',
      best_direction: 'lower',
      ...body,
    });
const backtest = (agent: RegisteredAgent, body: Record<string, unknown>) =>
  api().post('/api/sdk/autoresearch/backtest').set(as(agent)).send(body);

const round6 = (n: number) => Math.round(n * 1e6) / 1e6;

describe('research endpoints of the MCP client (autoresearch, backtest, fleet) #integration', () => {
  it('when no key is sent, then every research route answers 401 with the error body', async () => {
    const calls = [
      api().get('/api/sdk/autoresearch/state?skill_slug=x'),
      api().post('/api/sdk/autoresearch/experiments').send({}),
      api().post('/api/sdk/autoresearch/backtest').send({ skill_slug: 'x' }),
      api().get('/api/sdk/fleet/summary'),
    ];
    for (const res of await Promise.all(calls)) {
      assert.equal(res.status, 401, JSON.stringify(res.body));
      assert.equal(typeof res.body.detail, 'string');
    }
  });

  it('when experiments are recorded, then verdicts follow the kept best of the segment, a resend is idempotent, and the state reads back', async () => {
    const agent = await registerAgent({ name: 'researcher' });
    const probe = await state(agent, '__probe__');
    // A free tier is not gated on this self-hosted service.
    assert.equal(probe.status, 200, JSON.stringify(probe.body));
    assert.deepEqual(probe.body, {
      last_experiment_number: 0,
      current_segment: 0,
      best_metric: null,
      best_direction: null,
      metric_name: null,
      metric_unit: null,
      skill_slug: '__probe__',
    });

    const verdicts = async (n: number, status: string, value: number, extra = {}) => {
      const res = await experiment(agent, { experiment_number: n, status, metric_value: value, ...extra });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const { id, ...rest } = res.body;
      assert.equal(typeof id, 'string');
      assert.equal(rest.experiment_number, n);
      return {
        id,
        v: [rest.is_new_best, rest.status_mismatch, rest.zero_metric_keep, rest.prior_best_value],
      };
    };
    // [is_new_best, status_mismatch, zero_metric_keep, prior_best_value], direction lower.
    assert.deepEqual((await verdicts(1, 'keep', 10)).v, [true, false, false, null]);
    const second = await verdicts(2, 'keep', 12, {
      secondary_metrics: { sharpe: 1.2 },
      commit_hash: 'abc123',
    });
    assert.deepEqual(second.v, [false, true, false, 10], 'kept but not better');
    assert.deepEqual((await verdicts(3, 'discard', 8)).v, [false, true, false, 10], 'discarded but better');
    assert.deepEqual((await verdicts(4, 'crash', 0)).v, [false, false, false, 10]);
    assert.deepEqual((await verdicts(5, 'keep', 0)).v, [true, false, true, 10], 'a zero metric kept');

    const resend = await verdicts(2, 'keep', -100);
    assert.deepEqual(resend, second, 'a resend answers the first record, whatever it carries');
    assert.equal(
      await testContext().deps.models.ResearchExperiment.countDocuments({ agentId: agent.agent_id }),
      5,
    );

    let s = (await state(agent, 'tuner')).body;
    assert.deepEqual(s, {
      last_experiment_number: 5,
      current_segment: 0,
      best_metric: 0,
      best_direction: 'lower',
      metric_name: 'loss',
      metric_unit: '',
      skill_slug: 'tuner',
    });
    // A new segment starts its best afresh.
    assert.deepEqual((await verdicts(6, 'keep', 50, { segment: 1 })).v, [true, false, false, null]);
    s = (await state(agent, 'tuner')).body;
    assert.equal(s.current_segment, 1);
    assert.equal(s.best_metric, 50);

    const other = await registerAgent({ name: 'other-researcher' });
    assert.equal((await state(other, 'tuner')).body.last_experiment_number, 0, 'experiments are per agent');
    const bad = await experiment(agent, { experiment_number: 7, status: 'maybe', metric_value: 1 });
    assert.equal(bad.status, 422);
  });

  it('when trades carry signal_data, then the backtest keeps those that pass min_/max_ thresholds and sums their positions’ P&L', async () => {
    const { operatorToken } = testContext();
    const agent = await registerAgent({ name: 'backtester' });
    const markets = await Promise.all([makeMarket(), makeMarket(), makeMarket(), makeMarket(), makeMarket()]);
    const edges = [0.02, 0.06, 0.1, undefined];
    for (const [i, edge] of edges.entries()) {
      const res = await trade(agent, {
        market_id: markets[i]!._id,
        side: 'yes',
        amount: 20 + i * 10,
        skill_slug: 'edge-hunter',
        ...(edge !== undefined && { signal_data: { edge, source: 'model' } }),
      });
      assert.equal(res.body.success, true, JSON.stringify(res.body));
    }
    // Another skill's trade is no part of it.
    await trade(agent, {
      market_id: markets[4]!._id,
      side: 'yes',
      amount: 15,
      skill_slug: 'other',
      signal_data: { edge: 0.5 },
    });
    // A win: the edge 0.10 market resolves YES.
    await api()
      .post(`/api/admin/markets/${markets[2]!._id}/resolve`)
      .set('Authorization', `Bearer ${operatorToken}`)
      .send({ outcome: true })
      .expect(200);

    const rows = await api().get('/api/sdk/positions?status=all').set(as(agent)).expect(200);
    const pnl = new Map<string, number>(
      rows.body.positions.map((p: { market_id: string; pnl: number }) => [p.market_id, p.pnl]),
    );
    const pnlOf = (...idx: number[]) => round6(idx.reduce((s, i) => s + pnl.get(markets[i]!._id)!, 0));
    const original = pnlOf(0, 1, 2, 3);

    const min = await backtest(agent, {
      skill_slug: 'edge-hunter',
      config: { min_edge: 0.05, entry_threshold: 3 },
    });
    assert.equal(min.status, 200, JSON.stringify(min.body));
    const kept = [1, 2];
    const wins = kept.filter((i) => pnl.get(markets[i]!._id)! > 0).length;
    assert.deepEqual(min.body, {
      trades_total: 4,
      trades_included: 2,
      trades_excluded: 2,
      simulated_pnl: pnlOf(...kept),
      original_pnl: original,
      win_rate: wins / 2,
      improvement_pct: Math.round(((pnlOf(...kept) - original) / Math.abs(original)) * 1e4) / 100,
      ignored_config_keys: ['entry_threshold'],
      skill_slug: 'edge-hunter',
      days: 7,
      venue: 'sim',
    });
    assert.ok(pnl.get(markets[2]!._id)! > 0, 'YES resolved YES wins');

    const max = (await backtest(agent, { skill_slug: 'edge-hunter', config: { max_edge: 0.06 } })).body;
    assert.equal(max.trades_included, 2, 'edges 0.02 and 0.06 (≤ is inclusive); no signal_data fails');
    assert.equal(max.simulated_pnl, pnlOf(0, 1));

    const all = (await backtest(agent, { skill_slug: 'edge-hunter', config: {} })).body;
    assert.equal(all.trades_included, 4);
    assert.equal(all.improvement_pct, original === 0 ? null : 0);

    // Outside the window: the trades moved 8 days back (on the collection: mongoose keeps createdAt immutable).
    await testContext().deps.models.Trade.collection.updateMany(
      { agentId: agent.agent_id },
      { $set: { createdAt: new Date(Date.now() - 8 * 86_400_000) } },
    );
    const old = (await backtest(agent, { skill_slug: 'edge-hunter', config: {}, days: 7 })).body;
    assert.equal(old.trades_total, 0);
    assert.equal(old.improvement_pct, null);
    assert.equal(
      (await backtest(agent, { skill_slug: 'edge-hunter', config: {}, days: 9 })).body.trades_total,
      4,
    );
    const wrongVenue = await backtest(agent, { skill_slug: 'edge-hunter', venue: 'nowhere' });
    assert.equal(wrongVenue.status, 422);
  });

  it("when agents share a human, then the fleet summary lists them with balances, P&L and today's trades; an unclaimed agent sees itself", async () => {
    const { agent, token } = await claimedAgent();
    const sibling = await registerAgent({ name: 'sibling' });
    await claim(token, sibling.claim_code).expect(200);
    const market = await makeMarket();
    const bought = await trade(sibling, { market_id: market._id, side: 'no', amount: 25 });
    assert.equal(bought.body.success, true, JSON.stringify(bought.body));

    const res = await api().get('/api/sdk/fleet/summary').set(as(agent));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const f = res.body;
    assert.equal(typeof f.owner_id, 'string');
    assert.equal(f.tier, 'free');
    assert.equal(f.agents_total, 2);
    assert.equal(f.agents_active, 2);
    assert.equal(f.trades_today, 1);
    assert.deepEqual(
      f.agents.map((a: { agent_id: string }) => a.agent_id).sort(),
      [agent.agent_id, sibling.agent_id].sort(),
    );
    const row = f.agents.find((a: { agent_id: string }) => a.agent_id === sibling.agent_id);
    assert.equal(row.trades_today, 1);
    assert.equal(
      f.total_balance,
      round6(f.agents.reduce((s: number, a: { balance: number }) => s + a.balance, 0)),
    );
    assert.equal(
      f.total_pnl,
      round6(f.agents.reduce((s: number, a: { total_pnl: number }) => s + a.total_pnl, 0)),
    );

    const alone = await registerAgent({ name: 'loner' });
    const solo = (await api().get('/api/sdk/fleet/summary').set(as(alone)).expect(200)).body;
    assert.equal(solo.owner_id, null);
    assert.equal(solo.agents_total, 1);
    assert.equal(solo.agents[0].agent_id, alone.agent_id);
    assert.equal(solo.trades_today, 0);
  });
});
