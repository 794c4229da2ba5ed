import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { evaluatePriceAlerts } from '../../shared/domains/alerts/evaluate-price-alerts.js';
import { syncExternalPrices } from '../../shared/domains/venue-sync/sync-external-prices.js';
import { testContext } from '../support/context.js';
import { makeMarket, trade } from '../support/factories.js';
import { api, registerAgent, type RegisteredAgent } from '../support/http.js';
import { internalHostSpellings } from '../support/internal-hosts.js';
import { jobCompleted, jobsSettled } from '../support/jobs.js';
import { until } from '../support/until.js';
import { newPolymarketEvent, polymarketAdmin, polymarketEventUrl } from '../support/venue-emulators.js';

interface Delivery {
  id: string;
  type: string;
  data: Record<string, unknown>;
}

/** A receiver on 127.0.0.1 recording every JSON body it gets (answers 200). */
async function receiver() {
  const got: Delivery[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Delivery);
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/alerts`,
    got,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** The AlertResponse fields the client reads (client-contract §7.4). */
const ALERT_FIELDS = [
  'id',
  'market_id',
  'market_question',
  'side',
  'condition',
  'threshold',
  'webhook_url',
  'triggered_at',
  'created_at',
];

interface AlertView {
  id: string;
  triggered_at: string | null;
  [k: string]: unknown;
}

const asAgent = (a: RegisteredAgent) => ({ Authorization: `Bearer ${a.api_key}` });
const createAlert = (a: RegisteredAgent, body: Record<string, unknown>) =>
  api().post('/api/sdk/alerts').set(asAgent(a)).send(body);
const allAlerts = async (a: RegisteredAgent) => {
  const res = await api().get('/api/sdk/alerts?include_triggered=True').set(asAgent(a)).expect(200);
  return new Map((res.body.alerts as AlertView[]).map((x) => [x.id, x]));
};
/** Every trade `push` made: their after-fill jobs queue the alert evaluations. */
const pushed: string[] = [];
/** A buy by a fresh agent (no cooldown on the market), which moves the price; the new YES price. */
async function push(marketId: string, side: 'yes' | 'no', amount: number) {
  const res = await trade(await registerAgent(), { market_id: marketId, side, amount, venue: 'sim' });
  assert.equal(res.body.success, true, JSON.stringify(res.body));
  pushed.push(res.body.trade_id as string);
  // `new_price` is the price of the side bought.
  return side === 'yes' ? (res.body.new_price as number) : 1 - (res.body.new_price as number);
}

describe('Price alerts #integration', function () {
  this.timeout(60_000);

  it('Alerts fire once per crossing in each direction; not at all without a crossing', async () => {
    pushed.length = 0;
    const rxHook = await receiver();
    const rxAlert = await receiver();
    try {
      const owner = await registerAgent();
      const hook = await api()
        .post('/api/sdk/webhooks')
        .set(asAgent(owner))
        .send({ url: rxHook.url, events: ['price.movement'] });
      assert.equal(hook.status, 200, JSON.stringify(hook.body));
      const market = await makeMarket({ p0: 0.5, b: 200 });
      const alert = async (body: Record<string, unknown>) => {
        const res = await createAlert(owner, {
          market_id: market._id,
          side: 'yes',
          webhook_url: null,
          ...body,
        });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        return res.body as AlertView;
      };
      const up = await alert({ condition: 'crosses_above', threshold: 0.55, webhook_url: rxAlert.url });
      for (const f of ALERT_FIELDS) assert.ok(f in up, `AlertResponse has ${f}`);
      assert.equal(up.market_id, market._id);
      assert.equal(up.market_question, market.question);
      assert.equal(up.webhook_url, rxAlert.url);
      assert.equal(up.triggered_at, null);
      const down = await alert({ condition: 'crosses_below', threshold: 0.45 });
      assert.equal(down.webhook_url, null, 'JSON null webhook_url is accepted');
      const noDown = await alert({ side: 'no', condition: 'crosses_below', threshold: 0.45 });
      const level = await alert({ condition: 'above', threshold: 0.55 });
      const far = await alert({ condition: 'crosses_above', threshold: 0.95 });

      // Up across 0.55 (and the NO side down across 0.45).
      const p1 = await push(market._id, 'yes', 60);
      assert.ok(p1 > 0.56, `price pushed up to ${p1}`);
      let alerts = await until(
        () => allAlerts(owner),
        (m) => [up, noDown, level].every((a) => m.get(a.id)?.triggered_at),
      );
      for (const a of [up, noDown, level]) assert.ok(alerts.get(a.id)!.triggered_at, `${a.condition} fired`);
      assert.equal(alerts.get(down.id)!.triggered_at, null);
      assert.equal(alerts.get(far.id)!.triggered_at, null);
      const upFiredAt = alerts.get(up.id)!.triggered_at;

      // Overlapping evaluations and more moves on the same side fire nothing again.
      const { deps } = testContext();
      await Promise.all(Array.from({ length: 5 }, () => evaluatePriceAlerts(deps, market._id)));
      const late = await alert({ condition: 'crosses_above', threshold: 0.55 });
      const p2 = await push(market._id, 'yes', 10);
      assert.ok(p2 > 0.56, `still above: ${p2}`);
      await Promise.all(Array.from({ length: 5 }, () => evaluatePriceAlerts(deps, market._id)));
      alerts = await allAlerts(owner);
      assert.equal(alerts.get(late.id)!.triggered_at, null, 'no crossing since it was created: no firing');
      assert.equal(alerts.get(down.id)!.triggered_at, null);

      // Down across 0.45.
      const p3 = await push(market._id, 'no', 150);
      assert.ok(p3 < 0.44, `price pushed down to ${p3}`);
      alerts = await until(
        () => allAlerts(owner),
        (m) => Boolean(m.get(down.id)?.triggered_at),
      );
      assert.ok(alerts.get(down.id)!.triggered_at, 'crosses_below fired');
      assert.equal(alerts.get(late.id)!.triggered_at, null);

      // Back up across 0.55: `late` now sees its crossing; `up` fired once already.
      const p4 = await push(market._id, 'yes', 250);
      assert.ok(p4 > 0.56, `price pushed up again to ${p4}`);
      alerts = await until(
        () => allAlerts(owner),
        (m) => Boolean(m.get(late.id)?.triggered_at),
      );
      assert.ok(alerts.get(late.id)!.triggered_at, 'crosses_above fired on its crossing');
      assert.equal(alerts.get(up.id)!.triggered_at, upFiredAt, 'an alert fires once');
      assert.equal(alerts.get(far.id)!.triggered_at, null, 'never crossed: never fired');

      // One price.movement per firing to the agent's webhook; the alert's own URL gets its event once.
      const fired = [up, noDown, level, down, late].map((a) => a.id);
      const hookGot = await until(
        async () => rxHook.got,
        (g) => g.length >= fired.length,
      );
      const alertGot = await until(
        async () => rxAlert.got,
        (g) => g.length >= 1,
      );
      await Promise.all(Array.from({ length: 3 }, () => evaluatePriceAlerts(deps, market._id)));
      // Nothing more is on its way: every push's after-fill job has run (each queues an evaluation),
      // and no evaluation of this market and no delivery to these receivers is left to run.
      for (const tradeId of pushed) await jobCompleted('after-trade-fill', { tradeId });
      const alertIds = [up, down, noDown, level, far, late].map((a) => a.id);
      await jobsSettled(
        'webhooks',
        (d) =>
          d.marketId === market._id || d.webhookId === hook.body.id || alertIds.includes(d.alertId as string),
      );
      assert.deepEqual(hookGot.map((d) => d.data.alert_id).sort(), [...fired].sort());
      for (const d of hookGot) {
        assert.equal(d.type, 'price.movement');
        assert.equal(d.id, `price.movement.alert-${d.data.alert_id as string}`);
        assert.equal(d.data.market_id, market._id);
      }
      assert.equal(alertGot.length, 1);
      assert.equal(alertGot[0]!.type, 'price.movement');
      assert.equal(alertGot[0]!.data.alert_id, up.id);
      assert.equal(alertGot[0]!.data.condition, 'crosses_above');
      assert.ok((alertGot[0]!.data.price as number) >= 0.55);
    } finally {
      await rxHook.close();
      await rxAlert.close();
    }
  });

  it('when the venue price refresh moves an imported market across a threshold, then its alert fires', async () => {
    const owner = await registerAgent();
    await polymarketAdmin('DELETE', '/faults');
    const event = await newPolymarketEvent(['Yes', 'No'], [0.5]);
    const imported = await api()
      .post('/api/sdk/markets/import')
      .set(asAgent(owner))
      .send({ polymarket_url: polymarketEventUrl(event.event_slug) });
    assert.equal(imported.status, 200, JSON.stringify(imported.body));
    const marketId = imported.body.market_id as string;
    const res = await createAlert(owner, {
      market_id: marketId,
      side: 'yes',
      condition: 'crosses_above',
      threshold: 0.6,
      webhook_url: null,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    await polymarketAdmin('POST', `/markets/${event.markets[0]!.condition_id}/price`, { yes: 0.7 });
    await syncExternalPrices(testContext().deps, `alerts-${Date.now()}`);
    const alerts = await until(
      () => allAlerts(owner),
      (m) => Boolean(m.get(res.body.id as string)?.triggered_at),
    );
    const fired = alerts.get(res.body.id as string)!;
    assert.ok(fired.triggered_at, 'fired after the refresh');
    assert.ok((fired.triggered_price as number) >= 0.6);
  });

  it('lists untriggered alerts by default (include_triggered=False|True as the client sends it), triggered ones within hours, deletes, and refuses bad input with a fix', async () => {
    const owner = await registerAgent();
    const market = await makeMarket({ p0: 0.5, b: 200 });
    const base = { market_id: market._id, side: 'yes', webhook_url: null };
    const idle = (await createAlert(owner, { ...base, condition: 'below', threshold: 0.1 }).expect(200))
      .body as AlertView;
    const hit = (await createAlert(owner, { ...base, condition: 'above', threshold: 0.52 }).expect(200))
      .body as AlertView;
    await push(market._id, 'yes', 60);
    await until(
      () => allAlerts(owner),
      (m) => Boolean(m.get(hit.id)?.triggered_at),
    );

    const untriggered = await api()
      .get('/api/sdk/alerts?include_triggered=False')
      .set(asAgent(owner))
      .expect(200);
    assert.deepEqual(
      (untriggered.body.alerts as AlertView[]).map((a) => a.id),
      [idle.id],
    );
    assert.equal(untriggered.body.count, 1);
    const byDefault = await api().get('/api/sdk/alerts').set(asAgent(owner)).expect(200);
    assert.deepEqual(
      (byDefault.body.alerts as AlertView[]).map((a) => a.id),
      [idle.id],
    );
    const every = await api().get('/api/sdk/alerts?include_triggered=True').set(asAgent(owner)).expect(200);
    assert.equal(every.body.count, 2);
    for (const a of every.body.alerts as AlertView[]) for (const f of ALERT_FIELDS) assert.ok(f in a, f);

    const triggered = await api().get('/api/sdk/alerts/triggered?hours=24').set(asAgent(owner)).expect(200);
    assert.deepEqual(
      (triggered.body.alerts as AlertView[]).map((a) => a.id),
      [hit.id],
    );
    assert.equal(triggered.body.count, 1);
    const week = await api().get('/api/sdk/alerts/triggered?hours=168').set(asAgent(owner)).expect(200);
    assert.equal(week.body.count, 1);
    const tooLong = await api().get('/api/sdk/alerts/triggered?hours=169').set(asAgent(owner));
    assert.equal(tooLong.status, 422);
    assert.ok(tooLong.body.fix);

    for (const bad of [
      { ...base, condition: 'above', threshold: 1.5 },
      { ...base, condition: 'sideways', threshold: 0.5 },
      { ...base, condition: 'above', threshold: 0.5, webhook_url: 'http://169.254.169.254/latest' },
    ]) {
      const res = await createAlert(owner, bad);
      assert.equal(res.status, 422, JSON.stringify(res.body));
      assert.ok(res.body.fix, `refused with a fix: ${JSON.stringify(bad)}`);
    }
    const missing = await createAlert(owner, {
      ...base,
      market_id: 'no-such-market',
      condition: 'above',
      threshold: 0.5,
    });
    assert.equal(missing.status, 404);
    assert.ok(missing.body.fix);

    const other = await registerAgent();
    await api().delete(`/api/sdk/alerts/${idle.id}`).set(asAgent(other)).expect(404);
    const del = await api().delete(`/api/sdk/alerts/${idle.id}`).set(asAgent(owner)).expect(200);
    assert.deepEqual(del.body, { success: true, id: idle.id });
    const gone = await api().delete(`/api/sdk/alerts/${idle.id}`).set(asAgent(owner));
    assert.equal(gone.status, 404);
    assert.ok(gone.body.fix);
    assert.equal((await api().get('/api/sdk/alerts').set(asAgent(owner)).expect(200)).body.count, 0);
  });

  it("when an alert's webhook_url spells loopback, NAT64, 6to4, a documentation range or this host in a form a range list misses, then it is refused like a webhook's", async () => {
    const owner = await registerAgent();
    const market = await makeMarket({ p0: 0.5, b: 200 });
    for (const host of internalHostSpellings()) {
      const res = await createAlert(owner, {
        market_id: market._id,
        side: 'yes',
        condition: 'above',
        threshold: 0.9,
        webhook_url: `https://${host}:8443/alerts`,
      });
      assert.equal(res.status, 422, `${host}: ${JSON.stringify(res.body)}`);
      assert.ok(res.body.fix);
    }
    assert.equal((await api().get('/api/sdk/alerts').set(asAgent(owner)).expect(200)).body.count, 0);
  });
});
