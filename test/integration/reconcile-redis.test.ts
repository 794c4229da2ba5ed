import assert from 'node:assert/strict';
import { reconcileRedisWithDatabase } from '../../shared/domains/trading/reconcile-redis.js';
import type { Env } from '../../shared/infra/config/env.js';
import { testContext } from '../support/context.js';
import { makeMarket, trade } from '../support/factories.js';
import { api, registerAgent, type RegisteredAgent } from '../support/http.js';

const cooldowns = (a: RegisteredAgent) =>
  api().get(`/api/sdk/agents/${a.agent_id}/cooldowns`).set('Authorization', `Bearer ${a.api_key}`);
/** A buy of `amount` $SIM of the side under the idempotency key `key`. */
const buy = (a: RegisteredAgent, marketId: string, key: string, side = 'yes', amount = 5) =>
  trade(a, { market_id: marketId, side, amount, idempotency_key: key });
const marketCooldowns = (body: { cooldowns: { kind: string; market_id: string }[] }) =>
  body.cooldowns.filter((c) => c.kind === 'market_cooldown').map((c) => c.market_id);

describe('start-up reconciliation of Redis against the database #integration', () => {
  let saved: Env['SIM_COOLDOWN_SECONDS'];
  before(() => {
    saved = testContext().deps.env.SIM_COOLDOWN_SECONDS;
    testContext().deps.env.SIM_COOLDOWN_SECONDS = 120; // each buy opens a market cooldown too
  });
  after(() => {
    testContext().deps.env.SIM_COOLDOWN_SECONDS = saved;
  });

  it('when the database lost a filled trade that Redis still answers for, then after the reconciliation a replay of its key is not that trade’s success and the daily count and cooldown it took are gone', async () => {
    const { Trade } = testContext().deps.models;
    const agent = await registerAgent();
    const [lostMarket, keptMarket] = await Promise.all([makeMarket(), makeMarket()]);
    const lostKey = `lost-${agent.agent_id}`;
    const keptKey = `kept-${agent.agent_id}`;
    const lost = await buy(agent, lostMarket._id, lostKey);
    const kept = await buy(agent, keptMarket._id, keptKey);
    assert.equal(lost.body.fill_status, 'filled');
    assert.equal(kept.body.fill_status, 'filled');
    // The state a crash of the embedded database leaves: Redis answered and counted a trade whose
    // record the database never made durable. (Put back at the end: the suite's database is shared,
    // and later tests audit every book in it against its trades.)
    const lostRecord = await Trade.findById(lost.body.trade_id).lean();
    await Trade.deleteOne({ _id: lost.body.trade_id });
    try {
      const before = (await cooldowns(agent).expect(200)).body;
      assert.equal(before.daily.trades_today, 2);

      const repairs = await reconcileRedisWithDatabase(testContext().deps);

      const after = (await cooldowns(agent).expect(200)).body;
      assert.equal(after.daily.trades_today, 1, 'the lost trade is no longer counted');
      assert.deepEqual(marketCooldowns(after), [keptMarket._id], 'only the recorded buy keeps its cooldown');
      const replay = await buy(agent, lostMarket._id, lostKey);
      assert.equal(replay.status, 200);
      assert.notEqual(replay.body.trade_id, lost.body.trade_id, 'not the success of the lost trade');
      if (replay.body.success)
        assert.ok(await Trade.exists({ _id: replay.body.trade_id }), 'a trade that exists');
      const keptReplay = await buy(agent, keptMarket._id, keptKey);
      assert.equal(keptReplay.body.trade_id, kept.body.trade_id, 'a recorded trade is still replayed');
      assert.ok(
        repairs.idempotencyKeys >= 1 && repairs.dailyCounts >= 1 && repairs.cooldowns >= 1,
        JSON.stringify(repairs),
      );
    } finally {
      await Trade.create(lostRecord!);
    }
  });

  it('when Redis and the database agree, then the reconciliation changes nothing', async () => {
    await reconcileRedisWithDatabase(testContext().deps); // what earlier tests left (counts taken without trades)
    const agent = await registerAgent();
    const market = await makeMarket();
    const first = await buy(agent, market._id, 'agree', 'no', 3);
    assert.equal(first.body.fill_status, 'filled');
    const repairs = await reconcileRedisWithDatabase(testContext().deps);
    assert.deepEqual(repairs, { idempotencyKeys: 0, dailyCounts: 0, cooldowns: 0 });
    const replay = await buy(agent, market._id, 'agree', 'no', 3);
    assert.deepEqual(replay.body, first.body);
    assert.equal((await cooldowns(agent).expect(200)).body.daily.trades_today, 1);
  });
});
