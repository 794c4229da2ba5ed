import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { admitBuy, dailyUsage } from '../../shared/domains/limits/counters.js';
import { MAX_RESUMES, reconcileTrades } from '../../shared/domains/trading/reconcile-trades.js';
import { testContext } from '../support/context.js';
import { makeMarket, recordPendingBuy } from '../support/factories.js';
import { registerAgent } from '../support/http.js';
import { assertAgentConserved } from '../support/invariants.js';

const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000);

/** Moves a trade's clocks back, as if it had been left alone that long. */
const age = (id: string, minutes: number, fields: ('updatedAt' | 'createdAt')[] = ['updatedAt']) =>
  testContext()
    .deps.mongo.collection<{ _id: string }>('trades')
    .updateOne({ _id: id }, { $set: Object.fromEntries(fields.map((f) => [f, minutesAgo(minutes)])) });

async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = await read();
    if (done(v)) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const tradeOf = (id: string) => testContext().deps.models.Trade.findById(id).lean();

/** A counted admission for the agent's own daily limit, as the API takes one for a buy. */
async function admission(agentId: string, marketId: string) {
  const verdict = await admitBuy(testContext().deps.redis, testContext().env.QUEUE_PREFIX, {
    agentId,
    venue: 'sim',
    marketId,
    side: 'yes',
    ownerKey: `agent:${agentId}`,
    now: new Date(),
    marketCooldownMs: 0,
    maxTradesPerDay: 50,
    spendMicro: 0,
    dailyLimitMicro: null,
  });
  assert.ok(verdict.ok);
  return verdict.admission;
}
const buysToday = async (agentId: string) =>
  (await dailyUsage(testContext().deps.redis, testContext().env.QUEUE_PREFIX, `agent:${agentId}`, new Date()))
    .trades;

describe('stuck trades are reconciled #integration', () => {
  it('when an executing trade’s job failed for good, then a fresh job runs it to the end, once', async () => {
    const { deps } = testContext();
    const agent = await registerAgent();
    const marketId = randomUUID(); // no market yet: the first run fails for good after claiming the trade
    const tradeId = await recordPendingBuy(agent.agent_id, marketId);
    const job = await deps.queues.enqueue('execute-trade', { tradeId });
    await until(
      () => job.getState(),
      (s) => s === 'failed',
      'the job to fail',
    );
    assert.equal((await tradeOf(tradeId))!.status, 'executing');
    await makeMarket({ _id: marketId });
    await age(tradeId, 10);

    await reconcileTrades(deps, new Date());
    const trade = await until(
      () => tradeOf(tradeId),
      (t) => t?.status === 'filled',
      'the trade to fill',
    );
    assert.equal(trade!.resumeCount, 1);
    // The trade is filled inside the job; BullMQ counts the attempt only when it then marks the job
    // completed, so read the count once it has (read at once, it was 0 in two CI runs).
    const rerun = await until(
      async () => {
        const j = await deps.queues.findJob('execute-trade', { tradeId });
        return j && (await j.getState()) === 'completed' ? j : null;
      },
      (j) => j !== null,
      'the fresh job to complete',
    );
    assert.equal(rerun!.attemptsMade, 1, 'a fresh job: its first attempt, not the failed job’s second');
    const a = await deps.models.Agent.findById(agent.agent_id).lean();
    assert.equal(a!.balanceMicro, 10_000_000_000 - 10_000_000);
    await assertAgentConserved(agent.agent_id);
    await reconcileTrades(deps, new Date());
    assert.equal((await tradeOf(tradeId))!.resumeCount, 1, 'a filled trade is left alone');
  });

  it('when an executing trade has no job at all, then it is run again', async () => {
    const { deps } = testContext();
    const agent = await registerAgent();
    const market = await makeMarket();
    const tradeId = await recordPendingBuy(agent.agent_id, market._id, { status: 'executing' });
    await age(tradeId, 10);
    await reconcileTrades(deps, new Date());
    await until(
      () => tradeOf(tradeId),
      (t) => t?.status === 'filled',
      'the trade to fill',
    );
    await assertAgentConserved(agent.agent_id);
  });

  it('when a pending trade never ran, then it is stopped (never run late), its count given back; a young one waits', async () => {
    const { deps } = testContext();
    const agent = await registerAgent();
    const market = await makeMarket();
    const old = await recordPendingBuy(agent.agent_id, market._id, {
      admission: await admission(agent.agent_id, market._id),
    });
    const young = await recordPendingBuy(agent.agent_id, market._id);
    await age(old, 20, ['updatedAt', 'createdAt']);
    await age(young, 6);
    assert.equal(await buysToday(agent.agent_id), 1);

    await reconcileTrades(deps, new Date());
    const stopped = await tradeOf(old);
    assert.equal(stopped!.status, 'failed');
    assert.match(stopped!.failureReason!, /never ran/);
    assert.equal(stopped!.admissionSettled, true);
    assert.equal(await buysToday(agent.agent_id), 0, 'its daily count is given back');
    assert.equal((await tradeOf(young))!.status, 'pending', 'younger than the margin: left alone');

    // A job that turns up late for the stopped trade answers a refusal, never runs it.
    const late = await deps.queues.enqueueAndWait('execute-trade', { tradeId: old }, 10_000);
    assert.equal(late.state, 'completed');
    const answer = (late as { result: { success: boolean; error_code: string } }).result;
    assert.equal(answer.success, false);
    assert.equal(answer.error_code, 'not_executed');
    await assertAgentConserved(agent.agent_id);
  });

  it("when a pending trade's job failed for good, then it is stopped at once, without the margin a missing job gets", async () => {
    const { deps } = testContext();
    const agent = await registerAgent();
    const market = await makeMarket();
    // Its job ran before the trade was recorded and failed for good (trade not found): it will not run again.
    const tradeId = randomUUID();
    const ran = await deps.queues.enqueueAndWait('execute-trade', { tradeId }, 10_000);
    assert.equal(ran.state, 'failed');
    await recordPendingBuy(agent.agent_id, market._id, {
      _id: tradeId,
      admission: await admission(agent.agent_id, market._id),
    });
    await age(tradeId, 6, ['updatedAt', 'createdAt']);
    assert.equal(await buysToday(agent.agent_id), 1);

    await reconcileTrades(deps, new Date());
    const stopped = await tradeOf(tradeId);
    assert.equal(
      stopped!.status,
      'failed',
      'younger than the never-ran margin, but its job is done for good',
    );
    assert.equal(await buysToday(agent.agent_id), 0, 'its daily count is given back');
  });

  it('when a buy ended without filling but its count was never given back, then the reconcile job gives it back', async () => {
    const { deps } = testContext();
    const agent = await registerAgent();
    const market = await makeMarket();
    const tradeId = await recordPendingBuy(agent.agent_id, market._id, {
      status: 'rejected',
      failureCategory: 'balance',
      admission: await admission(agent.agent_id, market._id),
    });
    await age(tradeId, 10);
    assert.equal(await buysToday(agent.agent_id), 1);
    await reconcileTrades(deps, new Date());
    assert.equal(await buysToday(agent.agent_id), 0);
    assert.equal((await tradeOf(tradeId))!.admissionSettled, true);
  });

  it(`when a trade has been resumed ${MAX_RESUMES} times, then it is left to an operator`, async () => {
    const { deps } = testContext();
    const agent = await registerAgent();
    const tradeId = await recordPendingBuy(agent.agent_id, randomUUID(), { resumeCount: MAX_RESUMES });
    const job = await deps.queues.enqueue('execute-trade', { tradeId });
    await until(
      () => job.getState(),
      (s) => s === 'failed',
      'the job to fail',
    );
    await age(tradeId, 10);
    await reconcileTrades(deps, new Date());
    assert.equal(await job.getState(), 'failed', 'the failed job is kept for the operator');
    const t = await tradeOf(tradeId);
    assert.equal(t!.status, 'executing');
    assert.equal(t!.resumeCount, MAX_RESUMES);
  });
});
