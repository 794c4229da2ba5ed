import assert from 'node:assert/strict';
import { makeMarket, recordPendingBuy, trade } from '../support/factories.js';
import { testContext } from '../support/context.js';
import { tradeContext } from '../../shared/domains/trading/context.js';
import { runTrade } from '../../shared/domains/trading/run-trade.js';
import { api, registerAgent, type RegisteredAgent } from '../support/http.js';

const auth = (a: RegisteredAgent) => ({ Authorization: `Bearer ${a.api_key}` });

async function withAutomaton(budget: number, venue = 'sim') {
  const agent = await registerAgent();
  await api()
    .post('/api/sdk/automaton/init')
    .set(auth(agent))
    .send({ budget_usd: budget, horizon_days: 30, venue })
    .expect(200);
  return agent;
}

describe('automaton trade guard #integration', () => {
  it('when the automaton is halted, then buys and sells are refused with automaton_halted and a resume fix, and a resume lets them through', async () => {
    const agent = await withAutomaton(100);
    const market = await makeMarket();
    const bought = await trade(agent, { market_id: market._id, side: 'yes', amount: 5 });
    assert.equal(bought.body.success, true, JSON.stringify(bought.body));
    await api().post('/api/sdk/automaton/halt').set(auth(agent)).expect(200);

    const buy = await trade(agent, { market_id: market._id, side: 'yes', amount: 1 });
    assert.equal(buy.status, 200);
    assert.equal(buy.body.success, false);
    assert.equal(buy.body.error_code, 'automaton_halted');
    assert.match(buy.body.hint, /POST \/api\/sdk\/automaton\/resume/);
    const sell = await trade(agent, {
      market_id: market._id,
      side: 'yes',
      action: 'sell',
      shares: bought.body.shares_bought,
    });
    assert.equal(sell.body.error_code, 'automaton_halted', JSON.stringify(sell.body));
    // The refusal left no trade and no position change behind.
    const trades = await api().get('/api/sdk/trades').set(auth(agent)).expect(200);
    assert.equal(trades.body.total_count, 1);

    await api().post('/api/sdk/automaton/resume').set(auth(agent)).expect(200);
    const after = await trade(agent, {
      market_id: market._id,
      side: 'yes',
      action: 'sell',
      shares: bought.body.shares_bought,
    });
    assert.equal(after.body.success, true, JSON.stringify(after.body));
  });

  it('when buys would go past the budget, then the buy is refused (exceeded, then spent) while sells still go through', async () => {
    const agent = await withAutomaton(10);
    const market = await makeMarket();
    const first = await trade(agent, { market_id: market._id, side: 'yes', amount: 6 });
    assert.equal(first.body.success, true, JSON.stringify(first.body));

    const over = await trade(agent, { market_id: market._id, side: 'yes', amount: 5 });
    assert.equal(over.body.success, false);
    assert.equal(over.body.error_code, 'automaton_budget_exceeded');
    assert.match(over.body.error, /\$4\.00 left of its \$10\.00 budget on sim/);
    assert.match(over.body.hint, /Buy at most \$4\.00/);

    const rest = await trade(agent, { market_id: market._id, side: 'yes', amount: 4 });
    assert.equal(rest.body.success, true, JSON.stringify(rest.body));
    const spent = await trade(agent, { market_id: market._id, side: 'no', amount: 1 });
    assert.equal(spent.body.error_code, 'automaton_budget_spent', JSON.stringify(spent.body));
    assert.match(spent.body.hint, /POST \/api\/sdk\/automaton\/init/);
    const state = await api().get('/api/sdk/automaton/state').set(auth(agent)).expect(200);
    assert.equal(state.body.spent_usd, 10);
    assert.equal(state.body.remaining_usd, 0);

    const sell = await trade(agent, {
      market_id: market._id,
      side: 'yes',
      action: 'sell',
      shares: first.body.shares_bought,
    });
    assert.equal(sell.body.success, true, JSON.stringify(sell.body));

    // A new init is a new budget from now.
    await api()
      .post('/api/sdk/automaton/init')
      .set(auth(agent))
      .send({ budget_usd: 5, horizon_days: 30 })
      .expect(200);
    const again = await trade(agent, { market_id: market._id, side: 'no', amount: 1 });
    assert.equal(again.body.success, true, JSON.stringify(again.body));
  });

  it('when the budget is for another venue, then sim buys are not counted against it; an agent without an automaton is not limited', async () => {
    const agent = await withAutomaton(1, 'polymarket');
    const market = await makeMarket();
    const bought = await trade(agent, { market_id: market._id, side: 'yes', amount: 5 });
    assert.equal(bought.body.success, true, JSON.stringify(bought.body));
    const plain = await registerAgent();
    const free = await trade(plain, { market_id: market._id, side: 'no', amount: 5 });
    assert.equal(free.body.success, true, JSON.stringify(free.body));
  });

  it('when the legs of an atomic batch together go past the budget, then the batch is refused with the automaton code', async () => {
    const agent = await withAutomaton(3);
    const [a, b] = await Promise.all([makeMarket(), makeMarket()]);
    const res = await api()
      .post('/api/sdk/trades/batch')
      .set(auth(agent))
      .send({
        venue: 'sim',
        atomic: true,
        trades: [
          { market_id: a._id, side: 'yes', amount: 2 },
          { market_id: b._id, side: 'yes', amount: 2 },
        ],
      });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.success, false, JSON.stringify(res.body));
    assert.match(JSON.stringify(res.body), /automaton_budget_exceeded/);
    const trades = await api().get('/api/sdk/trades').set(auth(agent)).expect(200);
    assert.equal(trades.body.total_count, 0, 'no leg placed');
  });

  it('when buys whose sum exceeds the budget are sent at the same moment, then only as many as fit are accepted', async () => {
    const agent = await withAutomaton(10);
    const markets = await Promise.all(Array.from({ length: 8 }, () => makeMarket()));
    const answers = await Promise.all(
      markets.map((m) => trade(agent, { market_id: m._id, side: 'yes', amount: 3 })),
    );
    const accepted = answers.filter((r) => r.body.success === true);
    assert.equal(accepted.length, 3, JSON.stringify(answers.map((r) => r.body.error_code ?? 'ok')));
    for (const r of answers.filter((a) => a.body.success !== true)) {
      assert.equal(r.status, 200);
      assert.match(r.body.error_code, /^automaton_budget_(exceeded|spent)$/, JSON.stringify(r.body));
    }
    const state = await api().get('/api/sdk/automaton/state').set(auth(agent)).expect(200);
    assert.equal(state.body.spent_usd, 9);
    assert.equal(state.body.remaining_usd, 1);
    const trades = await api().get('/api/sdk/trades').set(auth(agent)).expect(200);
    assert.equal(trades.body.total_count, 3, 'the refused buys left no trade');
  });

  it('when the legs of a non-atomic batch race a single buy for the budget, then together they stay within it', async () => {
    const agent = await withAutomaton(5);
    const markets = await Promise.all(Array.from({ length: 4 }, () => makeMarket()));
    const [batch, single] = await Promise.all([
      api()
        .post('/api/sdk/trades/batch')
        .set(auth(agent))
        .send({
          venue: 'sim',
          trades: markets.slice(0, 3).map((m) => ({ market_id: m._id, side: 'yes', amount: 2 })),
        }),
      trade(agent, { market_id: markets[3]!._id, side: 'yes', amount: 2 }),
    ]);
    assert.equal(batch.status, 200, JSON.stringify(batch.body));
    const legs = (batch.body.results as { success: boolean }[]).filter((l) => l.success).length;
    assert.equal(
      legs + (single.body.success ? 1 : 0),
      2,
      JSON.stringify({ batch: batch.body, single: single.body }),
    );
    const state = await api().get('/api/sdk/automaton/state').set(auth(agent)).expect(200);
    assert.equal(state.body.spent_usd, 4);
  });

  it('when a buy that reserved budget is refused in execution, then its reservation is given back', async () => {
    const agent = await withAutomaton(5);
    const [a, b] = await Promise.all([makeMarket(), makeMarket()]);
    const unfillable = await trade(agent, { market_id: a._id, side: 'yes', amount: 4, price: 0.01 });
    assert.equal(unfillable.body.success, false, JSON.stringify(unfillable.body));
    assert.doesNotMatch(unfillable.body.error_code, /automaton/);
    const fits = await trade(agent, { market_id: b._id, side: 'yes', amount: 5 });
    assert.equal(fits.body.success, true, JSON.stringify(fits.body));
  });

  it('when the automaton halts while a trade waits in the queue, then the worker refuses it and nothing moves', async () => {
    const { deps } = testContext();
    const agent = await withAutomaton(100);
    const market = await makeMarket();
    // Accepted and recorded as the API does before queueing; the halt lands before a worker takes it.
    const queued = await recordPendingBuy(agent.agent_id, market._id, { amountMicro: 5_000_000 });
    const direct = await recordPendingBuy(agent.agent_id, market._id, { amountMicro: 5_000_000 });
    const balance = (await deps.models.Agent.findById(agent.agent_id).lean())!.balanceMicro;
    await api().post('/api/sdk/automaton/halt').set(auth(agent)).expect(200);

    // Through the job (the sim venue's group commit) and through runTrade (every other venue).
    const run = await deps.queues.enqueueAndWait('execute-trade', { tradeId: queued }, 10_000);
    assert.equal(run.state, 'completed');
    const answers = [
      (run as { result: { success: boolean; error_code: string } }).result,
      await runTrade(tradeContext(deps), direct),
    ];
    for (const answer of answers) {
      assert.equal(answer.success, false, JSON.stringify(answer));
      assert.equal(answer.error_code, 'automaton_halted');
    }
    for (const id of [queued, direct]) {
      const stored = await deps.models.Trade.findById(id).lean();
      assert.equal(stored!.status, 'rejected');
      assert.match(stored!.failureReason ?? '', /halted by your automaton/);
    }
    assert.equal((await deps.models.Agent.findById(agent.agent_id).lean())!.balanceMicro, balance);
    assert.equal(await deps.models.Position.countDocuments({ agentId: agent.agent_id }), 0);

    // Resumed, a trade queued then runs.
    await api().post('/api/sdk/automaton/resume').set(auth(agent)).expect(200);
    const after = await recordPendingBuy(agent.agent_id, market._id, { amountMicro: 1_000_000 });
    const ran = await deps.queues.enqueueAndWait('execute-trade', { tradeId: after }, 10_000);
    assert.equal((ran as { result: { success: boolean } }).result.success, true, JSON.stringify(ran));
  });
});
