import assert from 'node:assert/strict';
import request from 'supertest';
import { buildApp } from '../../api/app.js';
import { remarkLeaderboard } from '../../shared/domains/reads/leaderboard.js';
import { testContext } from '../support/context.js';
import { makeMarket, trade } from '../support/factories.js';
import { api, registerAgent, type RegisteredAgent } from '../support/http.js';

const brief = (agent: RegisteredAgent, query = '') =>
  api().get(`/api/sdk/briefing${query}`).set('Authorization', `Bearer ${agent.api_key}`);

describe('briefing #integration', () => {
  it('when a new agent asks, then sim is the only venue bucket, with a first action and new markets', async () => {
    const agent = await registerAgent();
    await makeMarket();
    const res = await brief(agent);
    assert.equal(res.status, 200);
    const sim = res.body.venues.sim;
    assert.equal(sim.currency, '$SIM');
    assert.equal(sim.balance, 10000);
    assert.equal(sim.cash_balance, 10000);
    assert.equal(sim.portfolio_value, 10000);
    assert.equal(sim.pnl, 0);
    assert.equal(sim.positions_count, 0);
    assert.deepEqual(sim.positions_needing_attention, []);
    assert.match(sim.actions[0], /not traded yet/);
    assert.deepEqual(sim.by_skill, {});
    assert.equal(res.body.venues.polymarket, null);
    assert.equal(res.body.venues.kalshi, null);
    assert.ok(
      res.body.opportunities.new_markets.length >= 1 && res.body.opportunities.new_markets.length <= 10,
    );
    // Approved community skills (other test files may have approved some; skills.test.ts checks the picks).
    assert.ok(Array.isArray(res.body.opportunities.recommended_skills));
    assert.ok(res.body.opportunities.recommended_skills.length <= 3);
    assert.equal(res.body.performance.total_pnl, 0);
    assert.equal(res.body.performance.rank, null);
    for (const key of ['risk_alerts', 'triggered_risk_alerts', 'risk_warnings', 'skill_updates'])
      assert.ok(Array.isArray(res.body[key]), key);
    assert.equal(typeof res.body.sdk_update, 'object');
    assert.ok(!Number.isNaN(Date.parse(res.body.checked_at)));
    const future = await brief(
      agent,
      `?since=${encodeURIComponent(new Date(Date.now() + 3600_000).toISOString())}`,
    );
    assert.deepEqual(future.body.opportunities.new_markets, []);
  });

  it('when a held market resolves soon and moves a lot, then it needs attention with reasons and plain-sentence actions', async () => {
    const agent = await registerAgent();
    const soon = await makeMarket({ p0: 0.5, resolvesAt: new Date(Date.now() + 3 * 3600_000) });
    const mover = await makeMarket({ p0: 0.5 });
    await trade(agent, { market_id: soon._id, side: 'yes', amount: 10 });
    await trade(agent, { market_id: mover._id, side: 'no', amount: 10 });
    const whale = await registerAgent();
    for (let i = 0; i < 6; i++) await trade(whale, { market_id: mover._id, side: 'yes', amount: 500 });
    const res = await brief(agent);
    const sim = res.body.venues.sim;
    assert.equal(sim.positions_count, 2);
    const byId = Object.fromEntries(
      sim.positions_needing_attention.map((p: { market_id: string }) => [p.market_id, p]),
    );
    assert.deepEqual(byId[soon._id].reasons, ['resolving_soon']);
    assert.match(byId[soon._id].time_to_resolution, /^2 hours$/);
    assert.deepEqual(byId[mover._id].reasons, ['big_move']);
    assert.ok(byId[mover._id].move_pct >= 10);
    assert.ok(byId[mover._id].pnl < 0, 'the NO position lost value');
    assert.ok(sim.actions.some((a: string) => /resolves in 2 hours/.test(a)));
    assert.ok(sim.actions.some((a: string) => /moved \d+ points/.test(a)));
    assert.ok(sim.unrealized_pnl < 0);
    assert.equal(res.body.performance.total_pnl, sim.pnl);
  });

  it('when trades name skills, then venues.sim.by_skill has each skill’s positions and P&L, as simmer-briefing reads it', async () => {
    const agent = await registerAgent();
    const [a, b, c] = [await makeMarket({ p0: 0.5 }), await makeMarket({ p0: 0.5 }), await makeMarket()];
    await trade(agent, { market_id: a._id, side: 'yes', amount: 20, skill_slug: 'divergence' });
    await trade(agent, { market_id: a._id, side: 'yes', amount: 5, skill_slug: 'copytrading' });
    await trade(agent, { market_id: b._id, side: 'no', amount: 10, skill_slug: 'copytrading' });
    await trade(agent, { market_id: c._id, side: 'yes', amount: 10 });
    const whale = await registerAgent();
    await trade(whale, { market_id: b._id, side: 'yes', amount: 300 });
    const positions = await api().get('/api/sdk/positions').set('Authorization', `Bearer ${agent.api_key}`);
    const pnlOf = (id: string) =>
      positions.body.positions.find((p: { market_id: string }) => p.market_id === id).pnl as number;

    const bySkill = (await brief(agent)).body.venues.sim.by_skill;
    assert.deepEqual(
      Object.keys(bySkill).sort(),
      ['copytrading', 'divergence'],
      'untagged trades are no skill',
    );
    assert.equal(bySkill.divergence.positions, 1);
    assert.equal(bySkill.divergence.trade_count, 1);
    assert.ok(Math.abs(bySkill.divergence.pnl - pnlOf(a._id)) < 1e-5);
    assert.equal(bySkill.copytrading.positions, 2);
    assert.equal(bySkill.copytrading.trade_count, 2);
    assert.ok(bySkill.copytrading.pnl < 0, 'its NO position lost to the whale');
    assert.ok(Math.abs(bySkill.copytrading.pnl - (pnlOf(a._id) + pnlOf(b._id))) < 1e-5);
    for (const t of Object.values(bySkill) as { pnl: number; realized_pnl: number; unrealized_pnl: number }[])
      assert.ok(Math.abs(t.pnl - (t.realized_pnl + t.unrealized_pnl)) < 1e-6);
  });

  it('when the client is older than the latest release, then sdk_update says so with both versions', async () => {
    const ctx = testContext();
    const app = buildApp(
      { ...ctx.deps, env: { ...ctx.env, SDK_LATEST_VERSION: '0.27.0' } },
      { operatorToken: ctx.operatorToken },
    );
    const agent = await registerAgent();
    const ask = (userAgent: string) =>
      request(app)
        .get('/api/sdk/briefing')
        .set('Authorization', `Bearer ${agent.api_key}`)
        .set('User-Agent', userAgent);
    const old = await ask('simmer-sdk/0.26.0 (python/3.11; runtime/unknown)');
    assert.equal(old.status, 200);
    assert.deepEqual(old.body.sdk_update, {
      update_available: true,
      current_version: '0.26.0',
      latest_version: '0.27.0',
    });
    const current = await ask('simmer-sdk/0.27.0 (python/3.12; runtime/claude-code)');
    assert.equal(current.body.sdk_update.update_available, false);
    const other = await ask('curl/8.5.0');
    assert.deepEqual(other.body.sdk_update, {
      update_available: false,
      current_version: null,
      latest_version: '0.27.0',
    });
  });

  it('when the board is re-marked, then the rank and board size follow at once, also when two marks share an instant', async () => {
    const { models } = testContext().deps;
    const [bull, bear, whale] = [await registerAgent(), await registerAgent(), await registerAgent()];
    const m = await makeMarket({ p0: 0.5 });
    await trade(bull, { market_id: m._id, side: 'yes', amount: 100 });
    await trade(bear, { market_id: m._id, side: 'no', amount: 100 });
    // What the rank means: 1 + the ranked agents with a higher board P&L (other files' agents included).
    const counted = async (id: string) => {
      const a = (await models.Agent.findById(id).lean())!;
      const ahead = await models.Agent.countDocuments({
        simTradesCount: { $gt: 0 },
        leaderboardPnlMicro: { $gt: a.leaderboardPnlMicro },
      });
      return 1 + ahead;
    };
    const standing = async (agent: RegisteredAgent) => {
      const res = await brief(agent);
      assert.equal(res.status, 200);
      return res.body.performance as { rank: number; total_agents: number };
    };
    // A fixed instant for both marks: a copy of the board keyed by its mark time alone would survive.
    const at = new Date();
    for (let i = 0; i < 4; i++) await trade(whale, { market_id: m._id, side: 'yes', amount: 500 });
    await remarkLeaderboard(models, at);
    const [bull1, bear1] = [await standing(bull), await standing(bear)];
    assert.equal(bull1.rank, await counted(bull.agent_id));
    assert.equal(bear1.rank, await counted(bear.agent_id));
    assert.ok(bull1.rank < bear1.rank, 'YES rose: the bull is ahead');
    const ranked = await models.Agent.countDocuments({ simTradesCount: { $gt: 0 } });
    assert.equal(bull1.total_agents, ranked);

    for (let i = 0; i < 10; i++) await trade(whale, { market_id: m._id, side: 'no', amount: 500 });
    await remarkLeaderboard(models, at);
    const [bull2, bear2] = [await standing(bull), await standing(bear)];
    assert.equal(bull2.rank, await counted(bull.agent_id));
    assert.equal(bear2.rank, await counted(bear.agent_id));
    assert.ok(bull2.rank > bear2.rank, 'YES fell: the bear is ahead');
  });
});
