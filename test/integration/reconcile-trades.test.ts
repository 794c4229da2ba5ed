import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { admitBuy, dailyUsage } from '../../shared/domains/limits/counters.js';
import { MAX_RESUMES, reconcileTrades } from '../../shared/domains/trading/reconcile-trades.js';
import { testContext } from '../support/context.js';
import { makeMarket } from '../support/factories.js';
import { registerAgent } from '../support/http.js';
import { assertAgentConserved } from '../support/invariants.js';

const tenMinutesAgo = () => new Date(Date.now() - 10 * 60_000);

/** A buy recorded as the API records it, last touched ten minutes ago. */
async function staleTrade(agentId: string, marketId: string, extra: Record<string, unknown> = {}) {
  const { deps } = testContext();
  const id = randomUUID();
  await deps.models.Trade.create({
    _id: id,
    agentId,
    marketId,
    venue: 'sim',
    side: 'yes',
    action: 'buy',
    amountMicro: 10_000_000,
    status: 'pending',
    ...extra,
  });
  await makeStale(id);
  return id;
}

const makeStale = (id: string) =>
  testContext()
    .deps.mongo.collection<{ _id: string }>('trades')
    .updateOne({ _id: id }, { $set: { updatedAt: tenMinutesAgo() } });

async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = await read();
    if (done(v)) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('stuck trades are reconciled #integration', () => {
  it('when a trade’s job failed for good, then the reconcile job runs it again and it fills once', async () => {
    const { deps } = testContext();
    const agent = await registerAgent();
    const marketId = randomUUID(); // no market yet: the first run fails for good (market not found)
    const tradeId = await staleTrade(agent.agent_id, marketId);
    const job = await deps.queues.enqueue('execute-trade', { tradeId });
    await until(
      () => job.getState(),
      (s) => s === 'failed',
      'the job to fail',
    );
    await makeMarket({ _id: marketId });
    await makeStale(tradeId);

    const counts = await reconcileTrades(deps, new Date());
    assert.equal(counts.resumed, 1);
    const trade = await until(
      () => deps.models.Trade.findById(tradeId).lean(),
      (t) => t?.status === 'filled',
      'the trade to fill',
    );
    assert.equal(trade!.resumeCount, 1);
    const a = await deps.models.Agent.findById(agent.agent_id).lean();
    assert.equal(a!.balanceMicro, 10_000_000_000 - 10_000_000);
    await assertAgentConserved(agent.agent_id);
    assert.equal((await reconcileTrades(deps, new Date())).resumed, 0, 'a filled trade is left alone');
  });

  it('when a pending trade never reached the queue, then it is marked failed and its daily count given back', async () => {
    const { deps } = testContext();
    const agent = await registerAgent();
    const market = await makeMarket();
    const ownerKey = `agent:${agent.agent_id}`;
    const verdict = await admitBuy(deps.redis, deps.env.QUEUE_PREFIX, {
      agentId: agent.agent_id,
      venue: 'sim',
      marketId: market._id,
      side: 'yes',
      ownerKey,
      now: new Date(),
      marketCooldownMs: 0,
      maxTradesPerDay: 50,
      spendMicro: 0,
      dailyLimitMicro: null,
    });
    assert.ok(verdict.ok);
    const tradeId = await staleTrade(agent.agent_id, market._id, { admission: verdict.admission });
    const before = await dailyUsage(deps.redis, deps.env.QUEUE_PREFIX, ownerKey, new Date());

    const counts = await reconcileTrades(deps, new Date());
    assert.ok(counts.abandoned >= 1);
    const trade = await deps.models.Trade.findById(tradeId).lean();
    assert.equal(trade!.status, 'failed');
    assert.match(trade!.failureReason!, /never reached the queue/);
    const after = await dailyUsage(deps.redis, deps.env.QUEUE_PREFIX, ownerKey, new Date());
    assert.equal(after.trades, before.trades - 1);
    await assertAgentConserved(agent.agent_id);
  });

  it(`when a trade has been resumed ${MAX_RESUMES} times, then it is left to an operator`, async () => {
    const { deps } = testContext();
    const agent = await registerAgent();
    const tradeId = await staleTrade(agent.agent_id, randomUUID(), { resumeCount: MAX_RESUMES });
    const job = await deps.queues.enqueue('execute-trade', { tradeId });
    await until(
      () => job.getState(),
      (s) => s === 'failed',
      'the job to fail',
    );
    await makeStale(tradeId);
    const counts = await reconcileTrades(deps, new Date());
    assert.ok(counts.needsOperator >= 1);
    assert.equal(await job.getState(), 'failed');
    assert.equal((await deps.models.Trade.findById(tradeId).lean())!.status, 'executing');
  });
});
