import assert from 'node:assert/strict';
import { buildApp } from '../../api/app.js';
import { settleMarket } from '../../shared/domains/settlement/settle-market.js';
import { QueueClient } from '../../shared/infra/queue/queue-client.js';
import { startWorkers, stopWorkers } from '../../shared/composition/worker-pool.js';
import { PROCESSORS } from '../../workers/registry.js';
import request from 'supertest';
import { testContext } from '../support/context.js';
import { makeMarket, trade } from '../support/factories.js';
import { api, registerAgent, type RegisteredAgent } from '../support/http.js';
import { assertAgentConserved, assertBookMatchesFills } from '../support/invariants.js';

const operator = () => ({ Authorization: `Bearer ${testContext().operatorToken}` });

describe('money under concurrency #integration', function () {
  this.timeout(180_000);

  it('when 20 agents fire 10 concurrent trades each over 5 markets and two markets resolve, then every balance and every book reconciles to the micro-unit', async () => {
    const markets = await Promise.all([0.2, 0.4, 0.5, 0.6, 0.8].map((p0) => makeMarket({ p0 })));
    const agents: RegisteredAgent[] = await Promise.all(
      Array.from({ length: 20 }, (_, i) => registerAgent({ name: `stress-${i}` })),
    );
    // Round 1: concurrent buys on both sides.
    const buys = agents.flatMap((agent, a) =>
      Array.from({ length: 6 }, (_, k) =>
        trade(agent, {
          market_id: markets[(a + k) % 5]!._id,
          side: (a + k) % 3 === 0 ? 'no' : 'yes',
          amount: 5 + ((a * 7 + k * 13) % 50),
        }),
      ),
    );
    const bought = await Promise.all(buys);
    assert.ok(
      bought.every((r) => r.status === 200 && r.body.success === true),
      JSON.stringify(bought.find((r) => !r.body.success)?.body),
    );
    // Round 2: concurrent sells of part of what was bought, mixed with more buys.
    const round2 = agents.flatMap((agent, a) => {
      const mine = bought.slice(a * 6, a * 6 + 6).map((r) => r.body);
      return [
        ...mine.slice(0, 3).map((b) =>
          trade(agent, {
            market_id: b.market_id,
            side: b.side,
            action: 'sell',
            shares: Math.floor(b.shares_bought * 50000) / 100000,
          }),
        ),
        trade(agent, { market_id: markets[a % 5]!._id, side: 'yes', amount: 3.33 }),
      ];
    });
    const second = await Promise.all(round2);
    assert.ok(
      second.every((r) => r.status === 200 && r.body.success === true),
      JSON.stringify(second.find((r) => !r.body.success)?.body),
    );
    // Two markets resolve; their positions are paid out.
    for (const [i, outcome] of [
      [0, true],
      [3, false],
    ] as const) {
      const res = await api()
        .post(`/api/admin/markets/${markets[i]!._id}/resolve`)
        .set(operator())
        .send({ outcome });
      assert.equal(res.status, 200);
      assert.equal(res.body.settlement.state, 'completed');
    }
    for (const agent of agents) await assertAgentConserved(agent.agent_id);
    for (const market of markets) await assertBookMatchesFills(market._id);
    const payouts = await testContext()
      .deps.models.Position.find({ marketId: { $in: [markets[0]!._id, markets[3]!._id] } })
      .lean();
    assert.ok(payouts.every((p) => p.status === 'settled'));
    assert.ok(payouts.some((p) => p.payoutMicro > 0));
    // The operator's ledger audit, over everything in the database, recomputes the same from the logs.
    const audit = await api().get('/api/admin/audit').set(operator());
    assert.equal(audit.status, 200);
    assert.deepEqual(audit.body.differences, []);
    assert.equal(audit.body.ok, true);
    assert.ok(audit.body.checked.agents >= agents.length);
    assert.ok(audit.body.checked.markets >= markets.length);
  });

  it('when one agent fires concurrent buys worth more than its balance, then exactly the affordable ones fill and the balance never goes negative', async () => {
    const agent = await registerAgent();
    const market = await makeMarket({ p0: 0.5, b: 50_000 });
    const answers = await Promise.all(
      Array.from({ length: 30 }, () => trade(agent, { market_id: market._id, side: 'yes', amount: 500 })),
    );
    const filled = answers.filter((r) => r.body.success);
    const refused = answers.filter((r) => !r.body.success);
    assert.equal(filled.length, 20);
    assert.equal(refused.length, 10);
    for (const r of refused)
      assert.ok(['insufficient_balance', 'agent_broke'].includes(r.body.error_code), r.body.error);
    const balances = filled.map((r) => r.body.position.sim_balance).sort((a, b) => a - b);
    assert.deepEqual(
      balances,
      Array.from({ length: 20 }, (_, i) => i * 500),
      'each fill reports the exact balance after it',
    );
    const me = await api().get('/api/sdk/agents/me').set('Authorization', `Bearer ${agent.api_key}`);
    assert.equal(me.body.balance, 0);
    assert.equal(me.body.status, 'broke');
    await assertAgentConserved(agent.agent_id);
    await assertBookMatchesFills(market._id);
  });

  describe('idempotency_key', () => {
    it('when the same key is sent twice, then the first answer is replayed and one trade exists', async () => {
      const agent = await registerAgent();
      const market = await makeMarket();
      const body = { market_id: market._id, side: 'yes', amount: 7, idempotency_key: 'order-1' };
      const first = await trade(agent, body);
      const second = await trade(agent, body);
      assert.deepEqual(second.body, first.body);
      assert.equal(await testContext().deps.models.Trade.countDocuments({ agentId: agent.agent_id }), 1);
      const other = await registerAgent();
      const otherAgent = await trade(other, body);
      assert.notEqual(otherAgent.body.trade_id, first.body.trade_id, 'keys are per agent');
      const noKey = [
        await trade(agent, { ...body, idempotency_key: undefined }),
        await trade(agent, { ...body, idempotency_key: undefined }),
      ];
      assert.notEqual(
        noKey[0]!.body.trade_id,
        noKey[1]!.body.trade_id,
        'without a key there is no deduplication',
      );
      await assertAgentConserved(agent.agent_id);
    });

    it('when 50 requests with one key arrive at once, then one trade executes and every answer is that trade or a retryable 503', async () => {
      const agent = await registerAgent();
      const market = await makeMarket();
      const body = { market_id: market._id, side: 'no', amount: 11, idempotency_key: 'burst-key' };
      const answers = await Promise.all(Array.from({ length: 50 }, () => trade(agent, body)));
      const ok = answers.filter((r) => r.status === 200);
      const busy = answers.filter((r) => r.status === 503);
      assert.equal(ok.length + busy.length, 50);
      assert.ok(ok.length >= 1);
      assert.equal(new Set(ok.map((r) => r.body.trade_id)).size, 1, 'one trade id');
      for (const r of busy) {
        assert.equal(r.body.retryable, true);
        assert.equal(typeof r.body.fix, 'string');
        assert.equal(r.body.error_code, 'idempotency_in_flight');
      }
      assert.equal(await testContext().deps.models.Trade.countDocuments({ agentId: agent.agent_id }), 1);
      const after = await trade(agent, body);
      assert.equal(after.body.trade_id, ok[0]!.body.trade_id, 'later duplicates replay it');
      await assertAgentConserved(agent.agent_id);
    });

    it('when Redis is unavailable, then a keyed trade and any buy answer 503 and nothing is placed; a sell without a key still runs', async () => {
      const ctx = testContext();
      const agent = await registerAgent();
      const market = await makeMarket();
      const held = await trade(agent, { market_id: market._id, side: 'yes', amount: 1 });
      assert.equal(held.body.success, true);
      const broken = ctx.deps.redis.duplicate();
      broken.disconnect();
      const app = buildApp({ ...ctx.deps, redis: broken }, { operatorToken: ctx.operatorToken });
      const res = await request(app)
        .post('/api/sdk/trade')
        .set('Authorization', `Bearer ${agent.api_key}`)
        .send({ market_id: market._id, side: 'yes', amount: 1, idempotency_key: 'k' });
      assert.equal(res.status, 503);
      assert.equal(res.body.retryable, true);
      assert.equal(res.body.error_code, 'idempotency_unavailable');
      assert.equal(res.headers['retry-after'], '2');
      assert.equal(await ctx.deps.models.Trade.countDocuments({ agentId: agent.agent_id }), 1);
      // A buy without a key still needs its daily limits and cooldowns checked: refused, not waved through.
      const buy = await request(app)
        .post('/api/sdk/trade')
        .set('Authorization', `Bearer ${agent.api_key}`)
        .send({ market_id: market._id, side: 'yes', amount: 1 });
      assert.equal(buy.status, 503);
      assert.equal(buy.body.error_code, 'limits_unavailable');
      assert.equal(buy.headers['retry-after'], '2');
      assert.equal(await ctx.deps.models.Trade.countDocuments({ agentId: agent.agent_id }), 1);
      const sell = await request(app)
        .post('/api/sdk/trade')
        .set('Authorization', `Bearer ${agent.api_key}`)
        .send({ market_id: market._id, side: 'yes', action: 'sell', shares: held.body.shares_bought });
      assert.equal(sell.body.success, true);
    });
  });

  it('when no worker answers before the deadline, then 200 "submitted" with the trade id, and the trade fills once a worker runs', async () => {
    const ctx = testContext();
    const prefix = `${ctx.env.QUEUE_PREFIX}-slow`;
    const queues = new QueueClient(ctx.deps.redis, prefix, ctx.deps.infra);
    const env = { ...ctx.env, QUEUE_PREFIX: prefix, TRADE_WAIT_MS: 300 };
    const deps = { ...ctx.deps, env, queues };
    const app = buildApp(deps, { operatorToken: ctx.operatorToken });
    const agent = await registerAgent();
    const market = await makeMarket();
    const res = await request(app)
      .post('/api/sdk/trade')
      .set('Authorization', `Bearer ${agent.api_key}`)
      .send({ market_id: market._id, side: 'yes', amount: 9 });
    assert.equal(res.status, 200);
    assert.equal(res.body.fill_status, 'submitted');
    assert.equal(res.body.success, true);
    assert.match(res.body.trade_id, /^[0-9a-f-]{36}$/);
    assert.equal(res.body.cost, 0);
    const workers = startWorkers(deps, PROCESSORS, ['trades']);
    try {
      const deadline = Date.now() + 10_000;
      let status = '';
      while (Date.now() < deadline && status !== 'filled') {
        status = (await ctx.deps.models.Trade.findById(res.body.trade_id).lean())!.status;
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(status, 'filled');
      const list = await api().get('/api/sdk/trades').set('Authorization', `Bearer ${agent.api_key}`);
      assert.equal(list.body.trades[0].trade_id, res.body.trade_id);
      assert.equal(list.body.trades[0].cost, 9);
    } finally {
      await stopWorkers(workers, 5000);
      await Promise.all(Object.values(queues.queues).map((q) => q.obliterate({ force: true })));
      await queues.close();
    }
    await assertAgentConserved(agent.agent_id);
  });

  describe('resolution and settlement', () => {
    it('when a market resolves, then winning shares pay 1 $SIM each, P&L and win/loss update, and settling again pays nothing more', async () => {
      const ctx = testContext();
      const market = await makeMarket({ p0: 0.5 });
      const [winner, loser] = await Promise.all([registerAgent(), registerAgent()]);
      const w = await trade(winner, { market_id: market._id, side: 'yes', amount: 100 });
      const l = await trade(loser, { market_id: market._id, side: 'no', amount: 100 });
      const res = await api()
        .post(`/api/admin/markets/${market._id}/resolve`)
        .set(operator())
        .send({ outcome: true });
      assert.equal(res.status, 200);
      assert.equal(res.body.status, 'resolved');
      assert.equal(res.body.outcome, true);
      assert.equal(res.body.settlement.positions, 2);
      assert.equal(res.body.settlement.payout, w.body.shares_bought);
      const winnerMe = await api()
        .get('/api/sdk/agents/me?include=pnl')
        .set('Authorization', `Bearer ${winner.api_key}`);
      assert.equal(winnerMe.body.balance, Math.round((9900 + w.body.shares_bought) * 1e6) / 1e6);
      assert.equal(winnerMe.body.win_count, 1);
      assert.equal(winnerMe.body.total_pnl, Math.round((w.body.shares_bought - 100) * 1e6) / 1e6);
      const loserMe = await api()
        .get('/api/sdk/agents/me?include=pnl')
        .set('Authorization', `Bearer ${loser.api_key}`);
      assert.equal(loserMe.body.balance, 9900);
      assert.equal(loserMe.body.loss_count, 1);
      assert.equal(loserMe.body.total_pnl, -100);
      assert.ok(l.body.success);

      await settleMarket(ctx.deps.models, market._id, ctx.deps.clock);
      const again = await api()
        .post(`/api/admin/markets/${market._id}/resolve`)
        .set(operator())
        .send({ outcome: true });
      assert.equal(again.status, 200, 'resolving again with the same outcome is idempotent');
      const winnerAfter = await api()
        .get('/api/sdk/agents/me')
        .set('Authorization', `Bearer ${winner.api_key}`);
      assert.equal(winnerAfter.body.balance, winnerMe.body.balance, 'paid once');
      const conflicting = await api()
        .post(`/api/admin/markets/${market._id}/resolve`)
        .set(operator())
        .send({ outcome: false });
      assert.equal(conflicting.status, 409);
      assert.equal(typeof conflicting.body.fix, 'string');
      const refused = await trade(winner, { market_id: market._id, side: 'yes', amount: 1 });
      assert.equal(refused.body.error_code, 'market_resolved');
      const detail = await api()
        .get(`/api/sdk/markets/${market._id}`)
        .set('Authorization', `Bearer ${winner.api_key}`);
      assert.equal(detail.body.market.status, 'resolved');
      assert.equal(detail.body.market.outcome, true);
      assert.ok(detail.body.market.resolved_at);
      const positions = await api()
        .get('/api/sdk/positions?status=settled')
        .set('Authorization', `Bearer ${winner.api_key}`);
      assert.equal(positions.body.positions[0].payout, w.body.shares_bought);
      await assertAgentConserved(winner.agent_id);
      await assertAgentConserved(loser.agent_id);
      await assertBookMatchesFills(market._id);
    });

    it('when the resolve endpoint is called without the operator token or for an unknown market, then 401 / 404', async () => {
      const market = await makeMarket();
      const anon = await api().post(`/api/admin/markets/${market._id}/resolve`).send({ outcome: true });
      assert.equal(anon.status, 401);
      const missing = await api()
        .post('/api/admin/markets/00000000-0000-4000-8000-000000000000/resolve')
        .set(operator())
        .send({ outcome: true });
      assert.equal(missing.status, 404);
      const bad = await api()
        .post(`/api/admin/markets/${market._id}/resolve`)
        .set(operator())
        .send({ outcome: 'yes' });
      assert.equal(bad.status, 422);
    });
  });
});
