import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { runTradeEffects } from '../../shared/composition/trade-effects.js';
import { monitorId } from '../../shared/domains/monitors/position-monitor.model.js';
import { testContext } from '../support/context.js';
import { makeMarket, trade } from '../support/factories.js';
import { api, registerAgent, type RegisteredAgent } from '../support/http.js';
import { until } from '../support/until.js';

const asAgent = (a: RegisteredAgent) => ({ Authorization: `Bearer ${a.api_key}` });

/** Three agents each buying on a market of its own; the first has a webhook, the second's market an alert. */
async function threeFills() {
  const { deps } = testContext();
  const agents = await Promise.all([registerAgent(), registerAgent(), registerAgent()]);
  const markets = await Promise.all([makeMarket(), makeMarket(), makeMarket()]);
  const hook = await deps.models.Webhook.create({
    _id: randomUUID(),
    agentId: agents[0]!.agent_id,
    url: 'https://hooks.example.com/fills',
    events: ['trade.executed'],
    secret: null,
  });
  await api()
    .post('/api/sdk/alerts')
    .set(asAgent(agents[1]!))
    .send({ market_id: markets[1]!._id, side: 'yes', condition: 'crosses_above', threshold: 0.99 })
    .expect(200);
  const ids = await Promise.all(
    agents.map(async (a, i) => {
      const res = await trade(a, { market_id: markets[i]!._id, side: 'yes', amount: 2, venue: 'sim' });
      assert.equal(res.body.success, true, JSON.stringify(res.body));
      return res.body.trade_id as string;
    }),
  );
  return { agents, markets, ids, hook };
}

describe('effects of a batch of fills #integration', () => {
  it('when several fills run their effects together, then each gets its webhook deliveries, its monitor and its market’s alert evaluation, as alone', async () => {
    const { deps } = testContext();
    const { agents, markets, ids } = await threeFills();
    const monitorOf = (i: number) => monitorId(agents[i]!.agent_id, markets[i]!._id, 'sim', 'yes');
    // The workers ran each fill's job already; the batch of all three runs again (idempotent).
    await until(
      async () =>
        (await deps.models.PositionMonitor.countDocuments({ _id: { $in: [0, 1, 2].map(monitorOf) } })) === 3,
      Boolean,
    );
    await deps.models.PositionMonitor.deleteMany({ _id: { $in: [monitorOf(0), monitorOf(2)] } });
    const unknown = randomUUID();

    const answers = await runTradeEffects(deps, [...ids, ids[0]!, unknown]);

    assert.deepEqual(answers.get(unknown), { trade_id: unknown, filled: false });
    assert.deepEqual(
      ids.map((id) => answers.get(id)),
      [
        // The webhook of the first agent; the monitors removed are armed again, the one left is kept.
        { trade_id: ids[0], filled: true, webhooks: 1, monitor_armed: true },
        { trade_id: ids[1], filled: true, webhooks: 0, monitor_armed: false },
        { trade_id: ids[2], filled: true, webhooks: 0, monitor_armed: true },
      ],
    );
    for (const i of [0, 1, 2]) {
      const m = await deps.models.PositionMonitor.findById(monitorOf(i)).lean();
      assert.equal(m?.state, 'active', `monitor ${i}`);
      assert.equal(m?.origin, 'auto');
      // As the one-fill upsert wrote it: timestamps and the schema's defaults on insert.
      assert.ok(m?.createdAt instanceof Date && m.updatedAt instanceof Date, `monitor ${i} timestamps`);
    }
    const monitors = await api().get('/api/sdk/positions/monitors').set(asAgent(agents[0]!)).expect(200);
    assert.equal(monitors.body.count, 1, JSON.stringify(monitors.body));
    // One evaluation for the market with an alert (the job of its fill), none for the others.
    const evaluation = (i: number) =>
      deps.queues.findJob('evaluate-price-alerts', { marketId: markets[i]!._id, cause: `trade-${ids[i]}` });
    assert.ok(await evaluation(1), 'the alerted market is evaluated');
    assert.equal(await evaluation(0), undefined);
    assert.equal(await evaluation(2), undefined);
  });

  it('when a fill’s monitor is already armed by an earlier run, then a second batch arms nothing and keeps the thresholds', async () => {
    const { deps } = testContext();
    const { agents, markets, ids } = await threeFills();
    const id = monitorId(agents[2]!.agent_id, markets[2]!._id, 'sim', 'yes');
    await until(async () => (await deps.models.PositionMonitor.findById(id).lean())?.state, Boolean);
    await deps.models.PositionMonitor.updateOne(
      { _id: id },
      { $set: { stopLossPct: 0.2, origin: 'manual' } },
    );
    const answers = await runTradeEffects(deps, ids);
    assert.deepEqual(
      ids.map((t) => answers.get(t)),
      ids.map((t, i) => ({ trade_id: t, filled: true, webhooks: i === 0 ? 1 : 0, monitor_armed: false })),
    );
    const kept = await deps.models.PositionMonitor.findById(id).lean();
    assert.equal(kept?.stopLossPct, 0.2);
    assert.equal(kept?.origin, 'manual');
  });
});
