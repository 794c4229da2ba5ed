import assert from 'node:assert/strict';
import { tradeContext } from '../../shared/domains/trading/context.js';
import { runTrade } from '../../shared/domains/trading/run-trade.js';
import { executeTradeGroup } from '../../shared/domains/trading/group-commit.js';
import { testContext } from '../support/context.js';
import { makeMarket, recordPendingBuy, trade } from '../support/factories.js';
import { registerAgent } from '../support/http.js';
import { assertAgentConserved, assertBookMatchesFills } from '../support/invariants.js';

/**
 * The sim engine resumes a trade from the steps its logs hold, never deciding a logged step again.
 * These tests leave a trade `executing` at a step, as a worker killed there would, change the world
 * under it, and run it again.
 */
describe('the sim engine resuming a trade from its logs #integration', () => {
  it('when a buy refused by its limit was released and the worker died before recording it, then the resumed trade answers that refusal even though the book would now fill it', async () => {
    const { deps } = testContext();
    const [agent, other] = await Promise.all([registerAgent(), registerAgent()]);
    const market = await makeMarket({ p0: 0.31 });
    const refused = await trade(agent, { market_id: market._id, side: 'yes', amount: 10, price: 0.3 });
    assert.equal(refused.body.success, false, JSON.stringify(refused.body));
    assert.equal(refused.body.error_code, 'limit_not_met');
    const tradeId = refused.body.trade_id as string;
    assert.ok(await deps.models.LedgerEntry.exists({ _id: `${tradeId}-release` }), 'the release is logged');

    // The worker's last write never happened: the trade is still executing, with no outcome.
    await deps.models.Trade.updateOne(
      { _id: tradeId },
      { $set: { status: 'executing', result: null, finishedAt: null, errorCode: null } },
    );
    // Meanwhile the book moved: the limit would be met now.
    const moved = await trade(other, { market_id: market._id, side: 'no', amount: 200 });
    assert.equal(moved.body.success, true, JSON.stringify(moved.body));
    assert.ok((await deps.models.Market.findById(market._id).lean())!.currentPrice < 0.29);

    const result = await runTrade(tradeContext(deps), tradeId);
    assert.equal(result.success, false, JSON.stringify(result));
    assert.equal(result.error_code, 'limit_not_met');
    assert.equal(await deps.models.MarketEvent.countDocuments({ _id: tradeId }), 0, 'nothing filled');
    const t = (await deps.models.Trade.findById(tradeId).lean())!;
    assert.equal(t.status, 'rejected');
    const a = (await deps.models.Agent.findById(agent.agent_id).lean())!;
    assert.equal(a.balanceMicro, 10_000_000_000);
    assert.equal(a.reservedMicro, 0);
    await assertAgentConserved(agent.agent_id);
    await assertBookMatchesFills(market._id);
  });

  it('when a group commit holds a trade whose reservation an earlier run logged, then that trade resumes from it and the others fill, each once', async () => {
    const { deps } = testContext();
    const market = await makeMarket({ p0: 0.5 });
    const agents = await Promise.all([registerAgent(), registerAgent(), registerAgent()]);
    const ids = await Promise.all(
      agents.map((a) => recordPendingBuy(a.agent_id, market._id, { amountMicro: 5_000_000 })),
    );
    // A first run of the first trade took it and logged its reservation (entry and agent), then died.
    const ctx = tradeContext(deps);
    const partial = await executeTradeGroup(
      { ...ctx, models: { ...ctx.models, MarketEvent: failingInserts(ctx.models.MarketEvent) } },
      [ids[0]!],
    );
    assert.ok('error' in partial.get(ids[0]!)!, 'the first run stopped after its reservation');
    assert.ok(await deps.models.LedgerEntry.exists({ _id: `${ids[0]}-reserve` }));

    const answers = await executeTradeGroup(ctx, ids);
    for (const id of ids) {
      const answer = answers.get(id)!;
      assert.ok('result' in answer && answer.result.success, JSON.stringify(answer));
      assert.equal(await deps.models.LedgerEntry.countDocuments({ tradeId: id }), 2);
      assert.equal(await deps.models.MarketEvent.countDocuments({ _id: id }), 1);
    }
    for (const a of agents) await assertAgentConserved(a.agent_id);
    await assertBookMatchesFills(market._id);
  });
});

/** The market-event log of `model`, whose inserts fail as a lost connection would. */
function failingInserts<M extends { collection: object }>(model: M): M {
  const collection = new Proxy(model.collection, {
    get: (target, name, receiver) =>
      name === 'insertMany' || name === 'insertOne'
        ? async () => {
            throw Object.assign(new Error('connection lost'), { name: 'MongoNetworkError' });
          }
        : Reflect.get(target, name, receiver),
  });
  return new Proxy(model, {
    get: (target, name, receiver) =>
      name === 'collection' ? collection : Reflect.get(target, name, receiver),
  });
}
