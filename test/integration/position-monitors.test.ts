import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { runTradeEffects } from '../../shared/composition/trade-effects.js';
import { evaluateMonitors } from '../../shared/domains/monitors/evaluate-monitors.js';
import { exitKey, exitMonitoredPosition } from '../../shared/domains/monitors/exit-position.js';
import { raiseRiskAlert } from '../../shared/domains/monitors/risk-alerts.js';
import { monitorId } from '../../shared/domains/monitors/position-monitor.model.js';
import { QueueClient } from '../../shared/infra/queue/queue-client.js';
import { syncExternalPrices } from '../../shared/domains/venue-sync/sync-external-prices.js';
import { testContext } from '../support/context.js';
import { makeMarket, trade } from '../support/factories.js';
import { api, registerAgent, type RegisteredAgent } from '../support/http.js';
import { jobCompleted, jobsSettled, pendingJobs } from '../support/jobs.js';
import {
  externalTrader,
  importedMarket,
  ownerIdOf,
  polymarketTrade,
  setTier,
  signedBuy,
} from '../support/polymarket-traders.js';
import { until } from '../support/until.js';
import { polymarketAdmin } from '../support/venue-emulators.js';
import { runWorkerProcess } from '../support/worker-process.js';

const asAgent = (a: RegisteredAgent) => ({ Authorization: `Bearer ${a.api_key}` });

/** client-contract §7.2 / §7.1: what the official client reads. */
const MONITOR_SET_FIELDS = [
  'success',
  'market_id',
  'side',
  'message',
  'stop_loss_pct',
  'take_profit_pct',
  'shares',
  'cost_basis',
];
const RISK_ALERT_FIELDS = ['market_id', 'side', 'shares', 'exit_reason', 'token_id', 'venue'];

interface TradeRow {
  id: string;
  action: string;
  side: string;
  source: string | null;
  shares: number;
  status?: string;
}

const monitorsOf = async (a: RegisteredAgent) =>
  (await api().get('/api/sdk/positions/monitors').set(asAgent(a)).expect(200)).body as {
    monitors: Record<string, unknown>[];
    settings: Record<string, unknown>[];
    count: number;
  };
const tradesOf = async (a: RegisteredAgent, venue = 'sim') =>
  (await api().get(`/api/sdk/trades?venue=${venue}&limit=200`).set(asAgent(a)).expect(200)).body
    .trades as TradeRow[];
const riskSells = async (a: RegisteredAgent) =>
  (await tradesOf(a)).filter((t) => t.source === 'risk-monitor' && t.action === 'sell');
const monitorState = async (a: RegisteredAgent, marketId: string, venue = 'sim', side = 'yes') =>
  (await testContext()
    .deps.models.PositionMonitor.findById(monitorId(a.agent_id, marketId, venue, side))
    .lean()) ?? null;
const yesShares = async (a: RegisteredAgent, marketId: string) => {
  const res = await api().get('/api/sdk/positions?venue=sim&status=all').set(asAgent(a)).expect(200);
  const row = (res.body.positions as { market_id: string; shares_yes: number }[]).find(
    (p) => p.market_id === marketId,
  );
  return row?.shares_yes ?? 0;
};

/**
 * The venue's YES price falls to 0.2 (below a 0.3 stop), the service reads it, and the monitors are
 * evaluated: answers the Polymarket YES monitor's state once it is done.
 */
async function priceFallsBelowStop(agent: RegisteredAgent, m: { marketId: string; conditionId: string }) {
  const { deps } = testContext();
  await polymarketAdmin('POST', `/markets/${m.conditionId}/price`, { yes: 0.2 });
  await syncExternalPrices(deps, `monitors-${Date.now()}`);
  await until(
    async () =>
      (await deps.models.Market.findById(m.marketId, { externalPriceYes: 1 }).lean())?.externalPriceYes,
    (p) => p !== undefined && p !== null && p < 0.3,
  );
  await evaluateMonitors(deps, new Date());
  return until(
    () => monitorState(agent, m.marketId, 'polymarket'),
    (s) => s?.state === 'done',
  );
}

/** Buys `side` by fresh agents (no cooldowns) until `done` holds; the answers' new prices. */
async function pushUntil(marketId: string, side: 'yes' | 'no', done: () => Promise<boolean>, amount = 150) {
  for (let i = 0; i < 20; i++) {
    if (await done()) return;
    const res = await trade(await registerAgent(), { market_id: marketId, side, amount, venue: 'sim' });
    assert.equal(res.body.success, true, JSON.stringify(res.body));
  }
  assert.fail('the price never got there');
}

/** A sim buy of YES by `agent`; its answer. */
async function buyYes(agent: RegisteredAgent, marketId: string, amount = 100) {
  const res = await trade(agent, { market_id: marketId, side: 'yes', amount, venue: 'sim' });
  assert.equal(res.body.success, true, JSON.stringify(res.body));
  return res.body as { shares_bought: number; cost: number; trade_id: string };
}

/**
 * Runs `fn` with the after-trade-fill effects held back: this process's trade-effects worker (the
 * only one of the test run) paused, and resumed whatever happens.
 */
async function withEffectsHeld<T>(fn: () => Promise<T>): Promise<T> {
  const effects = testContext().workers.find((w) => w.name === 'trade-effects');
  assert.ok(effects, 'the trade-effects worker');
  await effects.pause();
  try {
    return await fn();
  } finally {
    await effects.resume();
  }
}

/** The side's P&L fraction the evaluation sees for a sim YES holding. */
async function pnlOf(agent: RegisteredAgent, marketId: string) {
  const { Position, Market } = testContext().deps.models;
  const [p, m] = await Promise.all([
    Position.findById(`${agent.agent_id}:${marketId}:sim`).lean(),
    Market.findById(marketId, { currentPrice: 1 }).lean(),
  ]);
  return ((p!.sharesYesMicro + p!.reservedYesMicro) * m!.currentPrice - p!.costYesMicro) / p!.costYesMicro;
}

const setMonitor = (a: RegisteredAgent, marketId: string, body: Record<string, unknown>, venue?: string) =>
  api()
    .post(`/api/sdk/positions/${marketId}/monitor${venue ? `?venue=${venue}` : ''}`)
    .set(asAgent(a))
    .send(body);

/**
 * A sim YES holding whose stop-loss monitor is set to `triggered` directly, its exit fixed at
 * `times` the shares held (above 1: more than the position has, so the sell is refused).
 */
async function triggeredByHand(times: number) {
  const { deps } = testContext();
  const agent = await registerAgent();
  const market = await makeMarket({ b: 400 });
  const bought = await buyYes(agent, market._id);
  await setMonitor(agent, market._id, { side: 'yes', stop_loss_pct: 0.2 }, 'sim').expect(200);
  const id = monitorId(agent.agent_id, market._id, 'sim', 'yes');
  await deps.models.PositionMonitor.updateOne(
    { _id: id },
    {
      $set: {
        state: 'triggered',
        exitReason: 'stop_loss',
        triggeredAt: new Date(),
        triggerPrice: 0.3,
        triggerPnlPct: -0.25,
        exitSharesMicro: Math.round(bought.shares_bought * times * 1e6),
      },
    },
  );
  const m = (await deps.models.PositionMonitor.findById(id).lean())!;
  return { agent, market, id, m };
}

describe('Position monitors and risk alerts #integration', function () {
  this.timeout(120_000);

  it('a buy arms the default stop-loss; a manual monitor answers the client’s fields; both keys list it; delete removes it', async () => {
    const agent = await registerAgent();
    const market = await makeMarket({ b: 400 });
    await buyYes(agent, market._id, 50);
    // Unclaimed agents start with auto_risk_monitor_enabled and a 50% stop (client-contract §3.3).
    let list = await until(
      () => monitorsOf(agent),
      (l) => l.count === 1,
    );
    assert.deepEqual(list.monitors, list.settings);
    assert.equal(list.monitors[0]!.market_id, market._id);
    assert.equal(list.monitors[0]!.venue, 'sim');
    assert.equal(list.monitors[0]!.stop_loss_pct, 0.5);
    assert.equal(list.monitors[0]!.take_profit_pct, null);
    assert.equal(list.monitors[0]!.auto, true);

    await setMonitor(agent, market._id, { side: 'yes' }, 'sim').expect(422);
    await setMonitor(agent, market._id, { side: 'yes', stop_loss_pct: 1.5 }, 'sim').expect(422);

    const set = await setMonitor(
      agent,
      market._id,
      { side: 'YES', stop_loss_pct: 0.25, take_profit_pct: 0.4 },
      'sim',
    ).expect(200);
    for (const f of MONITOR_SET_FIELDS) assert.ok(f in set.body, `${f} in ${JSON.stringify(set.body)}`);
    assert.equal(set.body.success, true);
    assert.equal(set.body.stop_loss_pct, 0.25);
    assert.equal(set.body.take_profit_pct, 0.4);
    assert.ok(set.body.shares > 0 && set.body.cost_basis > 0);
    list = await monitorsOf(agent);
    assert.equal(list.count, 1);
    assert.equal(list.monitors[0]!.auto, false);
    assert.equal(list.monitors[0]!.stop_loss_pct, 0.25);

    // A second buy keeps the agent's own thresholds, once its effects (which arm monitors) have run:
    // they run after the answer, in the trade-effects queue, so without the wait the assertion
    // could read before them, and the delete below could come before them too.
    const second = (await buyYes(agent, market._id, 10)) as { trade_id?: string };
    assert.ok(second.trade_id);
    await jobCompleted('after-trade-fill', { tradeId: second.trade_id });
    assert.equal((await monitorsOf(agent)).monitors[0]!.stop_loss_pct, 0.25);

    await api()
      .delete(`/api/sdk/positions/${market._id}/monitor?side=yes&venue=sim`)
      .set(asAgent(agent))
      .expect(200);
    assert.equal((await monitorsOf(agent)).count, 0);
    await api()
      .delete(`/api/sdk/positions/${market._id}/monitor?side=yes&venue=sim`)
      .set(asAgent(agent))
      .expect(404);
  });

  it('when the agent deletes its monitor while an earlier buy’s effects are still queued, then those effects do not re-arm it, and a buy made after the delete arms the default again', async () => {
    const { deps } = testContext();
    const agent = await registerAgent();
    const market = await makeMarket({ b: 400 });
    const del = () =>
      api().delete(`/api/sdk/positions/${market._id}/monitor?side=yes&venue=sim`).set(asAgent(agent));
    const first = await buyYes(agent, market._id, 50);
    await jobCompleted('after-trade-fill', { tradeId: first.trade_id });
    assert.equal((await monitorsOf(agent)).count, 1);

    // The second buy's effects are held back until the agent has deleted the monitor: the order
    // the race produced by chance.
    const second = await withEffectsHeld(async () => {
      const bought = await buyYes(agent, market._id, 10);
      assert.equal(await pendingJobs('trade-effects', (d) => d.tradeId === bought.trade_id), 1);
      await del().expect(200);
      return bought;
    });
    await jobCompleted('after-trade-fill', { tradeId: second.trade_id });
    assert.equal((await monitorsOf(agent)).count, 0, 'the deleted monitor stays deleted');
    // The same effects run again (a retried job) arm nothing either, and the evaluation skips it.
    const again = await runTradeEffects(deps, [second.trade_id, first.trade_id]);
    assert.equal((again.get(second.trade_id) as { monitor_armed?: boolean }).monitor_armed, false);
    assert.equal((again.get(first.trade_id) as { monitor_armed?: boolean }).monitor_armed, false);
    await evaluateMonitors(deps, new Date());
    assert.equal((await monitorsOf(agent)).count, 0);
    assert.notEqual((await monitorState(agent, market._id))?.state, 'active');
    await del().expect(404);

    // A buy made after the delete is protected by the owner's default again, as any new buy is.
    const third = await buyYes(agent, market._id, 10);
    await jobCompleted('after-trade-fill', { tradeId: third.trade_id });
    const list = await monitorsOf(agent);
    assert.equal(list.count, 1);
    assert.equal(list.monitors[0]!.auto, true);
    assert.equal(list.monitors[0]!.stop_loss_pct, 0.5);
    assert.equal((await monitorState(agent, market._id))?.state, 'active');
    await del().expect(200);
  });

  it('when the client names no venue, then set and delete use the sim position’s venue, the monitor the buy armed included', async () => {
    const agent = await registerAgent();
    const market = await makeMarket({ b: 400 });
    await buyYes(agent, market._id, 50);
    await until(
      () => monitorsOf(agent),
      (l) => l.count === 1,
    );
    // The official client's delete_monitor: no venue; it removes the monitor the sim buy armed.
    const removed = await api()
      .delete(`/api/sdk/positions/${market._id}/monitor?side=yes`)
      .set(asAgent(agent))
      .expect(200);
    assert.equal(removed.body.venue, 'sim');
    assert.equal((await monitorsOf(agent)).count, 0);

    const set = await setMonitor(agent, market._id, { side: 'yes', stop_loss_pct: 0.3 }).expect(200);
    assert.equal(set.body.venue, 'sim');
    assert.equal((await monitorState(agent, market._id))?.stopLossPct, 0.3);
    await api().delete(`/api/sdk/positions/${market._id}/monitor?side=yes`).set(asAgent(agent)).expect(200);
    // Kept as a tombstone (so that the effects of earlier buys cannot re-arm it), listed no more.
    assert.equal((await monitorState(agent, market._id))?.state, 'deleted');
    assert.equal((await monitorsOf(agent)).count, 0);
  });

  it('when the agent holds the side on two venues and names none, then set and delete answer 409 listing them with a fix naming ?venue=', async () => {
    const { Position, PositionMonitor } = testContext().deps.models;
    const agent = await registerAgent();
    const market = await makeMarket({ b: 400 });
    await buyYes(agent, market._id, 50);
    await until(
      () => monitorsOf(agent),
      (l) => l.count === 1,
    );
    // The same side held (and monitored) on a second venue, written directly: the emulated venues
    // would need a claimed agent, a wallet and an imported market for what only the shape matters to.
    // Removed at the end: a position without ledger entries would fail every later ledger audit.
    const kalshiPositionId = `${agent.agent_id}:${market._id}:kalshi`;
    const kalshiMonitorId = monitorId(agent.agent_id, market._id, 'kalshi', 'yes');
    const simPosition = await Position.findById(`${agent.agent_id}:${market._id}:sim`).lean();
    await Position.create({ ...simPosition, _id: kalshiPositionId, venue: 'kalshi' });
    const simMonitor = await monitorState(agent, market._id);
    await PositionMonitor.create({ ...simMonitor, _id: kalshiMonitorId, venue: 'kalshi' });
    try {
      const set = await setMonitor(agent, market._id, { side: 'yes', stop_loss_pct: 0.3 }).expect(409);
      assert.equal(set.body.error_code, 'venue_ambiguous', JSON.stringify(set.body));
      assert.deepEqual(set.body.venues, ['kalshi', 'sim']);
      assert.match(set.body.fix, /\?venue=kalshi/);
      assert.match(set.body.fix, /\?venue=sim/);
      const del = await api()
        .delete(`/api/sdk/positions/${market._id}/monitor?side=yes`)
        .set(asAgent(agent))
        .expect(409);
      assert.deepEqual(del.body.venues, ['kalshi', 'sim']);
      assert.match(del.body.fix, /\?venue=sim/);
      // Nothing was touched; naming the venue works.
      assert.equal((await monitorState(agent, market._id))?.stopLossPct, 0.5);
      await setMonitor(agent, market._id, { side: 'yes', stop_loss_pct: 0.3 }, 'sim').expect(200);
      await api()
        .delete(`/api/sdk/positions/${market._id}/monitor?side=yes&venue=sim`)
        .set(asAgent(agent))
        .expect(200);
    } finally {
      await Position.deleteOne({ _id: kalshiPositionId });
      await PositionMonitor.deleteOne({ _id: kalshiMonitorId });
    }
  });

  it('when the agent holds the side nowhere and names no venue, then set and delete answer 404 on no venue (none is assumed)', async () => {
    const agent = await registerAgent();
    const market = await makeMarket({ b: 400 });
    await buyYes(agent, market._id, 50);
    // The NO side is held on no venue, and has no monitor on any: the venue would be the position's.
    const none = await setMonitor(agent, market._id, { side: 'no', stop_loss_pct: 0.2 }).expect(404);
    assert.equal(none.body.error_code, 'position_not_found', JSON.stringify(none.body));
    assert.equal(none.body.detail, `No NO shares held in market ${market._id} on any venue`);
    assert.ok(none.body.fix);
    const noMonitor = await api()
      .delete(`/api/sdk/positions/${market._id}/monitor?side=no`)
      .set(asAgent(agent))
      .expect(404);
    assert.equal(noMonitor.body.error_code, 'monitor_not_found');
    assert.equal(noMonitor.body.detail, `No monitor on NO of market ${market._id} on any venue`);
    assert.ok(noMonitor.body.fix);
    const stranger = await registerAgent();
    await setMonitor(stranger, market._id, { side: 'yes', stop_loss_pct: 0.2 }).expect(404);
  });

  it('stop-loss on sim fires once when another agent’s trades move the price through it, sells through the pipeline, and the monitor is gone', async () => {
    const { deps } = testContext();
    const agent = await registerAgent();
    const market = await makeMarket({ b: 400 });
    const bought = await buyYes(agent, market._id);
    await setMonitor(agent, market._id, { side: 'yes', stop_loss_pct: 0.2 }, 'sim').expect(200);

    // No crossing, no exit.
    let run = await evaluateMonitors(deps, new Date());
    assert.ok(run.evaluated >= 1);
    assert.equal((await monitorState(agent, market._id))!.state, 'active');

    await pushUntil(market._id, 'no', async () => (await pnlOf(agent, market._id)) <= -0.2);
    run = await evaluateMonitors(deps, new Date());
    assert.ok(run.triggered >= 1, JSON.stringify(run));
    const m = await until(
      () => monitorState(agent, market._id),
      (s) => s?.state === 'done',
    );
    assert.equal(m!.exitOutcome, 'sold');
    assert.equal(m!.exitReason, 'stop_loss');
    const sells = await riskSells(agent);
    assert.equal(sells.length, 1, JSON.stringify(sells));
    assert.equal(sells[0]!.side, 'yes');
    assert.equal(sells[0]!.id, m!.exitTradeId);
    assert.ok(Math.abs(sells[0]!.shares - bought.shares_bought) < 1e-5, JSON.stringify(sells[0]));
    assert.equal(await yesShares(agent, market._id), 0);
    assert.equal((await monitorsOf(agent)).count, 0, 'the monitor is gone');

    // Fired once: later evaluations sell nothing more. Any exit they queued for this monitor has
    // run (an exit places its sale and waits for it) before the sales are counted.
    await Promise.all([evaluateMonitors(deps, new Date()), evaluateMonitors(deps, new Date())]);
    await jobsSettled('risk-monitors', (d) => d.monitorId === m!._id);
    assert.equal((await riskSells(agent)).length, 1);
  });

  it('take-profit on sim fires once when the price rises through it', async () => {
    const { deps } = testContext();
    const agent = await registerAgent();
    const market = await makeMarket({ b: 400 });
    await buyYes(agent, market._id);
    await setMonitor(agent, market._id, { side: 'yes', take_profit_pct: 0.15 }, 'sim').expect(200);
    // A drop is not a take-profit.
    await pushUntil(market._id, 'no', async () => (await pnlOf(agent, market._id)) <= -0.1);
    await evaluateMonitors(deps, new Date());
    assert.equal((await monitorState(agent, market._id))!.state, 'active');

    await pushUntil(market._id, 'yes', async () => (await pnlOf(agent, market._id)) >= 0.15);
    await evaluateMonitors(deps, new Date());
    const m = await until(
      () => monitorState(agent, market._id),
      (s) => s?.state === 'done',
    );
    assert.equal(m!.exitReason, 'take_profit');
    assert.equal(m!.exitOutcome, 'sold');
    assert.equal((await riskSells(agent)).length, 1);
    assert.equal(await yesShares(agent, market._id), 0);
  });

  it('overlapping evaluations trigger and sell exactly once', async () => {
    const { deps } = testContext();
    const agent = await registerAgent();
    const market = await makeMarket({ b: 400 });
    await buyYes(agent, market._id);
    await setMonitor(agent, market._id, { side: 'yes', stop_loss_pct: 0.2 }, 'sim').expect(200);
    await pushUntil(market._id, 'no', async () => (await pnlOf(agent, market._id)) <= -0.2);
    const runs = await Promise.all(Array.from({ length: 4 }, () => evaluateMonitors(deps, new Date())));
    const mine = runs.reduce((n, r) => n + r.triggered, 0);
    assert.ok(mine >= 1);
    await until(
      () => monitorState(agent, market._id),
      (s) => s?.state === 'done',
    );
    // The same exit enqueued again (as the resume path does) places nothing new.
    const m = (await monitorState(agent, market._id))!;
    const again = { monitorId: m._id, generation: m.generation, attempt: 'r1' };
    await deps.queues.enqueue('exit-monitored-position', again);
    // That job has run to its end (an exit places its sale and waits for it) before sales are counted.
    await jobCompleted('exit-monitored-position', again);
    assert.equal((await riskSells(agent)).length, 1);
  });

  it('a worker SIGKILLed after every write of the evaluation, the exit and the sell still sells exactly once', async function () {
    // About a dozen worker starts (tsx) in a row.
    this.timeout(300_000);
    const ctx = testContext();
    const agent = await registerAgent();
    const market = await makeMarket({ b: 400 });
    const bought = await buyYes(agent, market._id);
    await setMonitor(agent, market._id, { side: 'yes', stop_loss_pct: 0.2 }, 'sim').expect(200);
    await pushUntil(market._id, 'no', async () => (await pnlOf(agent, market._id)) <= -0.2);

    // The evaluation, the exit and the trade all run in a separate worker under a queue prefix of
    // their own, killed after each write that made progress.
    const prefix = `${ctx.env.QUEUE_PREFIX}-monitor-${randomUUID().slice(0, 8)}`;
    const queues = new QueueClient(ctx.deps.redis, prefix, ctx.deps.infra);
    const finished = async () => (await monitorState(agent, market._id))?.state === 'done';
    let crashes = 0;
    try {
      await queues.enqueue('evaluate-position-monitors', { every: 10, bucket: 1 });
      for (let i = 0; i < 40 && !(await finished()); i++) {
        // Resume exits whose job the crashes used up (the scheduled evaluation does this every tick).
        if (i > 0) await evaluateMonitors({ ...ctx.deps, queues }, new Date(Date.now() + 120_000 * i));
        if ((await runWorkerProcess(prefix, 1, finished, 'risk-monitors,trades')) === 'killed') crashes++;
      }
      if (!(await finished())) await runWorkerProcess(prefix, null, finished, 'risk-monitors,trades');
    } finally {
      await Promise.all(Object.values(queues.queues).map((q) => q.obliterate({ force: true })));
      await queues.close();
    }
    console.log(`      monitor crash test: worker killed ${crashes} times, then finished`);
    assert.ok(crashes >= 2, `the worker was killed ${crashes} times`);
    const m = (await monitorState(agent, market._id))!;
    assert.equal(m.exitOutcome, 'sold');
    const sells = await riskSells(agent);
    assert.equal(sells.length, 1, JSON.stringify(sells));
    assert.ok(Math.abs(sells[0]!.shares - bought.shares_bought) < 1e-5);
    assert.equal(await yesShares(agent, market._id), 0);
  });

  it('an external wallet’s position raises a risk alert instead of selling; the briefing shows it; the client deletes it', async () => {
    const t = await externalTrader();
    const m = await importedMarket(t.agent, [0.5, 0.5]);
    const bought = await signedBuy(t, m);
    assert.equal(bought.body.success, true, JSON.stringify(bought.body));
    // The client's own call: no venue (Polymarket by default).
    const set = await setMonitor(t.agent, m.marketId, { side: 'yes', stop_loss_pct: 0.3 }).expect(200);
    assert.equal(set.body.venue, 'polymarket');

    const done = await priceFallsBelowStop(t.agent, m);
    assert.equal(done!.exitOutcome, 'alerted');

    const res = await api().get('/api/sdk/risk-alerts').set(asAgent(t.agent)).expect(200);
    assert.equal(res.body.risk_alerts.length, 1, JSON.stringify(res.body));
    const alert = res.body.risk_alerts[0];
    for (const f of RISK_ALERT_FIELDS) assert.ok(f in alert, `${f} in ${JSON.stringify(alert)}`);
    assert.equal(alert.market_id, m.marketId);
    assert.equal(alert.side, 'yes');
    assert.equal(alert.exit_reason, 'stop_loss');
    assert.equal(alert.venue, 'polymarket');
    assert.equal(alert.token_id, m.yes);
    assert.ok(Math.abs(alert.shares - (bought.body.shares_bought as number)) < 1e-5);
    assert.equal(
      (await tradesOf(t.agent, 'polymarket')).filter((x) => x.source === 'risk-monitor').length,
      0,
    );

    const brief = await api().get('/api/sdk/briefing').set(asAgent(t.agent)).expect(200);
    assert.equal(brief.body.triggered_risk_alerts.length, 1);
    assert.equal(brief.body.triggered_risk_alerts[0].market_id, m.marketId);
    const message = brief.body.risk_alerts[0].message as string;
    // The official client reads "gas", or "pol" outside "polymarket", as a gas shortage.
    assert.ok(!/gas/i.test(message) && !/pol(?!ymarket)/i.test(message), message);

    await api().delete(`/api/sdk/risk-alerts/${m.marketId}/yes`).set(asAgent(t.agent)).expect(200);
    await api().delete(`/api/sdk/risk-alerts/${m.marketId}/yes`).set(asAgent(t.agent)).expect(404);
    assert.deepEqual((await api().get('/api/sdk/risk-alerts').set(asAgent(t.agent)).expect(200)).body, {
      risk_alerts: [],
    });
  });

  it('when a position is held in the agent’s own wallet and the account’s wallet is external, then its stop-loss sells from the agent wallet instead of alerting', async () => {
    const { deps } = testContext();
    const t = await externalTrader();
    await setTier(await ownerIdOf(t.agent), 'elite');
    const reg = await api().post('/api/sdk/agent-wallet/register').set(asAgent(t.agent)).send({}).expect(201);
    const own = reg.body.wallet_address as string;
    await polymarketAdmin('POST', `/wallets/${own}/fund`, { pusd: 300 });
    await polymarketAdmin('POST', `/wallets/${own}/approve`);
    const m = await importedMarket(t.agent, [0.5, 0.5]);
    const bought = await polymarketTrade(t.agent, {
      market_id: m.marketId,
      side: 'yes',
      amount: 10,
      wallet_address: own,
    }).expect(200);
    assert.equal(bought.body.success, true, JSON.stringify(bought.body));
    await setMonitor(t.agent, m.marketId, { side: 'yes', stop_loss_pct: 0.3 }, 'polymarket').expect(200);
    const yesTokens = async (wallet: string) =>
      Number(
        (await polymarketAdmin<{ tokens: Record<string, number> }>('GET', `/wallets/${wallet}`)).tokens[
          m.yes
        ] ?? 0,
      );
    const heldBefore = await yesTokens(own);

    const done = await priceFallsBelowStop(t.agent, m);
    assert.equal(done!.exitOutcome, 'sold', JSON.stringify(done));
    const exit = (await deps.models.Trade.findById(done!.exitTradeId).lean())!;
    assert.equal((exit.venueOrder!.signed as { maker: string }).maker, own);
    const held = await yesTokens(own);
    assert.ok(exit.fill!.sharesMicro > 0);
    assert.ok(
      Math.abs(held - (heldBefore - exit.fill!.sharesMicro / 1e6)) < 1e-6,
      JSON.stringify({ held, exit }),
    );
  });

  it('when the service’s own exit sell is refused, then the agent gets a risk alert naming the refusal instead of an unprotected position it was not told about', async () => {
    const { deps } = testContext();
    // A trigger whose fixed shares the position no longer has (the agent sold meanwhile): the sell is refused.
    const { agent, market, id, m: armed } = await triggeredByHand(3);
    const run = await exitMonitoredPosition(deps, id, armed.generation);
    assert.equal(run.outcome, 'refused');
    const m = (await monitorState(agent, market._id))!;
    assert.equal(m.exitOutcome, 'refused');

    const res = await api().get('/api/sdk/risk-alerts').set(asAgent(agent)).expect(200);
    assert.equal(res.body.risk_alerts.length, 1, JSON.stringify(res.body));
    assert.equal(res.body.risk_alerts[0].venue, 'sim');
    assert.equal(res.body.risk_alerts[0].exit_refused, 'insufficient_shares');
    const brief = await api().get('/api/sdk/briefing').set(asAgent(agent)).expect(200);
    const message = brief.body.risk_alerts[0].message as string;
    assert.match(message, /refused: insufficient_shares/);
    assert.ok(!/gas/i.test(message) && !/pol(?!ymarket)/i.test(message), message);
  });

  it('when an exit’s first sell was stopped before it ran and an earlier run raised an alert, then the retry sells and withdraws the alert', async () => {
    const { deps } = testContext();
    const { agent, market, id, m } = await triggeredByHand(1);
    // An earlier run: its sell was refused (an alert was raised), then its resend was stopped before it ran.
    await raiseRiskAlert(deps, m, 'market_cooldown');
    await deps.models.Trade.create({
      _id: randomUUID(),
      agentId: agent.agent_id,
      marketId: market._id,
      venue: 'sim',
      side: 'yes',
      action: 'sell',
      orderType: 'GTC',
      idempotencyKey: exitKey(m),
      status: 'failed',
      failureReason: 'The trade queue was unavailable; nothing was executed.',
    });
    const run = await exitMonitoredPosition(deps, id, m.generation);
    assert.equal(run.outcome, 'sold', JSON.stringify(run));
    assert.equal(await yesShares(agent, market._id), 0);
    const alerts = await api().get('/api/sdk/risk-alerts').set(asAgent(agent)).expect(200);
    assert.deepEqual(alerts.body.risk_alerts, [], 'the alert of the refused run is withdrawn');
  });
});
