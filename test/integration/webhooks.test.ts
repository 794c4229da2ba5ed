import assert from 'node:assert/strict';
import { createHmac, randomUUID } from 'node:crypto';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import type { Job } from 'bullmq';
import request from 'supertest';
import { buildApp } from '../../api/app.js';
import { ConfigError, loadEnv } from '../../shared/infra/config/env.js';
import { deliverWebhook } from '../../shared/domains/webhooks/deliver-webhook.js';
import { emitTradeExecuted } from '../../shared/domains/webhooks/events.js';
import { parseWebhookUrl, UnsafeWebhookUrl } from '../../shared/domains/webhooks/url-guard.js';
import { MAX_CONSECUTIVE_FAILURES } from '../../shared/domains/webhooks/webhook.model.js';
import type { Deps } from '../../shared/composition/deps.js';
import { testContext } from '../support/context.js';
import { makeMarket, trade } from '../support/factories.js';
import { api, registerAgent, type RegisteredAgent } from '../support/http.js';
import { internalHostSpellings } from '../support/internal-hosts.js';
import { jobCompleted, jobsSettled } from '../support/jobs.js';
import { until } from '../support/until.js';

interface Received {
  raw: string;
  body: { id: string; type: string; created_at: string; data: Record<string, unknown> };
  headers: http.IncomingHttpHeaders;
}

/** A receiver on 127.0.0.1 that records every request and answers with `answer(n)` (n from 1). */
async function receiver(
  answer: (n: number) => { status: number; headers?: Record<string, string> } = () => ({ status: 200 }),
) {
  const got: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      got.push({ raw, body: JSON.parse(raw) as Received['body'], headers: req.headers });
      const a = answer(got.length);
      res.writeHead(a.status, a.headers ?? {}).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    got,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const asAgent = (a: RegisteredAgent) => ({ Authorization: `Bearer ${a.api_key}` });
const register = (a: RegisteredAgent, body: Record<string, unknown>) =>
  api().post('/api/sdk/webhooks').set(asAgent(a)).send(body);
const hmac = (secret: string, raw: string) => createHmac('sha256', secret).update(raw).digest('hex');
const webhookOf = async (a: RegisteredAgent, id: string) => {
  const list = await api().get('/api/sdk/webhooks').set(asAgent(a)).expect(200);
  return (
    list.body.webhooks as {
      id: string;
      active: boolean;
      consecutive_failures: number;
      last_delivery_at: string | null;
      last_error: string | null;
    }[]
  ).find((w) => w.id === id)!;
};
/** A new agent's webhook at `url`, sent a test event; its state once `done` holds. */
async function testEventUntil(
  url: string,
  done: (w: Awaited<ReturnType<typeof webhookOf>>) => boolean,
  ms?: number,
) {
  const agent = await registerAgent();
  const hook = await register(agent, { url }).expect(200);
  await api().post('/api/sdk/webhooks/test').set(asAgent(agent)).expect(200);
  return { agent, w: await until(() => webhookOf(agent, hook.body.id as string), done, ms) };
}

/** Returns once every delivery queued for these webhooks has finished: nothing more is on its way. */
const deliveriesSettled = (...webhookIds: string[]) =>
  jobsSettled('webhooks', (d) => webhookIds.includes(d.webhookId as string));
/**
 * The retry delays BullMQ computes for failed deliveries to a webhook, in order, as its workers
 * report them (a failed attempt's job carries the delay it was put back with): the schedule, not
 * the time that happened to pass.
 */
function retryDelaysOf(webhookId: () => string) {
  const delays: number[] = [];
  const workers = testContext().workers.filter((w) => w.name === 'webhooks');
  const onFailed = (job: Job | undefined) => {
    if ((job?.data as { webhookId?: string } | undefined)?.webhookId === webhookId()) delays.push(job!.delay);
  };
  for (const w of workers) w.on('failed', onFailed);
  return { delays, stop: () => workers.forEach((w) => w.off('failed', onFailed)) };
}
/** Returns once the job that emits a trade's trade.executed has run. */
/** One `webhook.test` event delivered straight through the delivery code, as its job would. */
const deliverTestEvent = (deps: Deps, webhookId: string) =>
  deliverWebhook(deps, {
    webhookId,
    eventId: `webhook.test.${randomUUID()}`,
    type: 'webhook.test',
    createdAt: new Date().toISOString(),
    data: {},
  });
const effectsRan = (tradeId: string) => jobCompleted('after-trade-fill', { tradeId });

describe('webhooks #integration', function () {
  this.timeout(30_000);

  it('when a trade fills, then the receiver gets one trade.executed body signed with the secret (HMAC recomputed) and a timestamp', async () => {
    const rx = await receiver();
    try {
      const agent = await registerAgent();
      const secret = `whsec-${randomUUID()}`;
      const res = await register(agent, { url: rx.url, secret });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body.events, [
        'trade.executed',
        'trade.failed',
        'market.resolved',
        'price.movement',
        'reactor.signal',
      ]);
      assert.equal(res.body.active, true);
      assert.equal(res.body.consecutive_failures, 0);
      assert.equal(res.body.last_delivery_at, null);
      assert.equal(res.body.has_secret, true);
      assert.ok(!JSON.stringify(res.body).includes(secret), 'the secret is never echoed');
      const stored = await testContext().deps.models.Webhook.findById(res.body.id).lean();
      assert.ok(stored?.secret && !JSON.stringify(stored).includes(secret), 'the secret is stored sealed');

      const market = await makeMarket();
      const traded = Date.now();
      const t = await trade(agent, { market_id: market._id, side: 'yes', amount: 10, venue: 'sim' });
      assert.equal(t.body.success, true, JSON.stringify(t.body));
      const got = await until(
        async () => rx.got,
        (g) => g.length >= 1,
      );
      const arrived = Date.now();
      assert.equal(got.length, 1);
      const [d] = got;
      assert.equal(d!.body.type, 'trade.executed');
      assert.equal(d!.body.id, `trade.executed.${t.body.trade_id}`);
      assert.equal(d!.body.data.trade_id, t.body.trade_id);
      assert.equal(d!.body.data.market_id, market._id);
      assert.equal(d!.body.data.side, 'yes');
      assert.equal(d!.body.data.action, 'buy');
      assert.ok((d!.body.data.shares as number) > 0);
      assert.equal(d!.headers['x-simmer-signature'], hmac(secret, d!.raw));
      assert.notEqual(d!.headers['x-simmer-signature'], hmac('another-secret', d!.raw));
      assert.match(String(d!.headers['x-simmer-timestamp']), /^\d{10}$/);
      // The moment of sending, in whole seconds: between the trade and its arrival here.
      const sentAt = Number(d!.headers['x-simmer-timestamp']);
      assert.ok(sentAt >= Math.floor(traded / 1000) && sentAt <= Math.ceil(arrived / 1000), String(sentAt));
      assert.equal(d!.headers['x-simmer-event-id'], d!.body.id);
      assert.equal(d!.headers['content-type'], 'application/json');

      const after = await until(
        () => webhookOf(agent, res.body.id),
        (w) => w.last_delivery_at !== null,
      );
      assert.equal(after.consecutive_failures, 0);
      assert.ok(after.last_delivery_at);

      // The test endpoint (no body) sends a signed webhook.test event.
      const test = await api().post('/api/sdk/webhooks/test').set(asAgent(agent)).expect(200);
      assert.equal(test.body.success, true);
      assert.equal(test.body.queued, 1);
      assert.deepEqual(test.body.webhook_ids, [res.body.id]);
      const two = await until(
        async () => rx.got,
        (g) => g.length >= 2,
      );
      assert.equal(two[1]!.body.type, 'webhook.test');
      assert.equal(two[1]!.body.id, test.body.event_id);
      assert.equal(two[1]!.headers['x-simmer-signature'], hmac(secret, two[1]!.raw));
    } finally {
      await rx.close();
    }
  });

  it('when a webhook has a secret, then X-Simmer-Signature-V2 signs the timestamp with the body, so a changed timestamp fails verification; the body-only X-Simmer-Signature stays', async () => {
    const rx = await receiver();
    try {
      const agent = await registerAgent();
      const secret = `whsec-${randomUUID()}`;
      await register(agent, { url: rx.url, secret }).expect(200);
      await api().post('/api/sdk/webhooks/test').set(asAgent(agent)).expect(200);
      const [d] = await until(
        async () => rx.got,
        (g) => g.length >= 1,
      );
      const timestamp = String(d!.headers['x-simmer-timestamp']);
      const v2 = d!.headers['x-simmer-signature-v2'];
      assert.equal(v2, hmac(secret, `${timestamp}.${d!.raw}`));
      assert.notEqual(
        v2,
        hmac(secret, `${Number(timestamp) + 1}.${d!.raw}`),
        'a replay with a new timestamp fails',
      );
      assert.notEqual(v2, hmac(secret, `${timestamp}.${d!.raw} `), 'a changed body fails');
      assert.equal(d!.headers['x-simmer-signature'], hmac(secret, d!.raw), 'the client contract header');
    } finally {
      await rx.close();
    }
  });

  it('when the same event is emitted again (retried trade job, concurrent emits), then the receiver gets it once with the same event id', async () => {
    const rx = await receiver();
    try {
      const agent = await registerAgent();
      const hook = await register(agent, { url: rx.url, events: ['trade.executed'] }).expect(200);
      const market = await makeMarket();
      const t = await trade(agent, { market_id: market._id, side: 'no', amount: 5, venue: 'sim' });
      assert.equal(t.body.success, true);
      const { deps } = testContext();
      await Promise.all([1, 2, 3].map(() => emitTradeExecuted(deps, t.body.trade_id as string)));
      await until(
        async () => rx.got,
        (g) => g.length >= 1,
      );
      await emitTradeExecuted(deps, t.body.trade_id as string);
      // Every emitter has run (the trade's own after-fill job, the four above) and every delivery
      // they queued has finished: a second copy would have arrived by now.
      await effectsRan(t.body.trade_id as string);
      await deliveriesSettled(hook.body.id as string);
      const ids = rx.got.map((g) => g.body.id);
      assert.deepEqual(ids, [`trade.executed.${t.body.trade_id}`]);
    } finally {
      await rx.close();
    }
  });

  it('when the market resolves, then a subscribed holder gets market.resolved once; a webhook not subscribed to it gets nothing', async () => {
    const rx = await receiver();
    const other = await receiver();
    try {
      const agent = await registerAgent();
      const hook = await register(agent, { url: rx.url, events: ['market.resolved'] }).expect(200);
      const otherHook = await register(agent, { url: other.url, events: ['price.movement'] }).expect(200);
      const market = await makeMarket();
      const t = await trade(agent, { market_id: market._id, side: 'yes', amount: 5, venue: 'sim' });
      assert.equal(t.body.success, true);
      await api()
        .post(`/api/admin/markets/${market._id}/resolve`)
        .set('Authorization', `Bearer ${testContext().operatorToken}`)
        .send({ outcome: true })
        .expect(200);
      const got = await until(
        async () => rx.got,
        (g) => g.length >= 1,
      );
      assert.equal(got[0]!.body.type, 'market.resolved');
      assert.equal(got[0]!.body.id, `market.resolved.${market._id}`);
      assert.equal(got[0]!.body.data.outcome, true);
      // Both emitters ran (the trade's after-fill job; the settlement, which sent the event above)
      // and every delivery queued for either webhook has finished: nothing more is on its way.
      await effectsRan(t.body.trade_id as string);
      await deliveriesSettled(hook.body.id as string, otherHook.body.id as string);
      assert.equal(
        rx.got.length,
        1,
        'the trade.executed event is not subscribed, market.resolved comes once',
      );
      assert.equal(other.got.length, 0);
    } finally {
      await rx.close();
      await other.close();
    }
  });

  it('when the receiver answers 500, then the delivery is retried with growing delays, the same body each time, until it succeeds', async () => {
    let hookId = '';
    const retries = retryDelaysOf(() => hookId);
    const rx = await receiver((n) => ({ status: n <= 3 ? 500 : 200 }));
    try {
      const agent = await registerAgent();
      const secret = 'retry-secret-123';
      const hook = await register(agent, { url: rx.url, secret }).expect(200);
      hookId = hook.body.id as string;
      await api().post('/api/sdk/webhooks/test').set(asAgent(agent)).expect(200);
      const got = await until(
        async () => rx.got,
        (g) => g.length >= 4,
      );
      assert.equal(got.length, 4);
      assert.equal(
        new Set(got.map((g) => g.raw)).size,
        1,
        'every attempt sends the same body (same event id)',
      );
      for (const g of got) assert.equal(g.headers['x-simmer-signature'], hmac(secret, g.raw));
      const base = testContext().env.WEBHOOK_RETRY_BASE_MS;
      assert.deepEqual(
        retries.delays,
        [base, 2 * base, 4 * base],
        'each retry is scheduled twice as far out',
      );
      const w = await until(
        () => webhookOf(agent, hook.body.id),
        (x) => x.last_delivery_at !== null,
      );
      assert.equal(w.consecutive_failures, 0, 'a success resets the failure count');
      assert.equal(w.active, true);
    } finally {
      retries.stop();
      await rx.close();
    }
  });

  it(`when the receiver keeps failing, then after ${MAX_CONSECUTIVE_FAILURES} consecutive failures the webhook is inactive and gets nothing more`, async () => {
    const rx = await receiver(() => ({ status: 500 }));
    try {
      const { agent, w } = await testEventUntil(rx.url, (x) => !x.active, 25_000);
      assert.equal(w.active, false);
      assert.equal(w.consecutive_failures, MAX_CONSECUTIVE_FAILURES);
      assert.match(w.last_error!, /500/);
      assert.equal(rx.got.length, MAX_CONSECUTIVE_FAILURES);
      assert.equal(new Set(rx.got.map((g) => g.body.id)).size, 1);
      const test = await api().post('/api/sdk/webhooks/test').set(asAgent(agent)).expect(200);
      assert.equal(test.body.queued, 0, 'an inactive webhook is not sent to');
      await deliveriesSettled(w.id);
      assert.equal(rx.got.length, MAX_CONSECUTIVE_FAILURES);
    } finally {
      await rx.close();
    }
  });

  it('when the receiver redirects, then the redirect is not followed and counts as a failure', async () => {
    const target = await receiver();
    const rx = await receiver(() => ({ status: 302, headers: { location: target.url } }));
    try {
      const { agent, w } = await testEventUntil(rx.url, (x) => x.consecutive_failures >= 2);
      assert.match(w.last_error!, /302.*redirect/);
      assert.equal(w.last_delivery_at, null);
      assert.equal(target.got.length, 0, 'the redirect target is never contacted');
      await api().delete(`/api/sdk/webhooks/${w.id}`).set(asAgent(agent)).expect(200);
      await api().delete(`/api/sdk/webhooks/${w.id}`).set(asAgent(agent)).expect(404);
    } finally {
      await rx.close();
      await target.close();
    }
  });

  describe('SSRF guard', () => {
    const guarded = () => {
      const ctx = testContext();
      const deps = { ...ctx.deps, env: { ...ctx.deps.env, WEBHOOK_ALLOW_LOOPBACK: false } };
      return { deps, app: buildApp(deps, { operatorToken: ctx.operatorToken }) };
    };

    it('with the guard on, loopback, metadata, private, a name resolving to loopback and a redirecting URL are refused at registration', async () => {
      const { app } = guarded();
      const redirector = await receiver(() => ({
        status: 302,
        headers: { location: 'http://169.254.169.254/' },
      }));
      try {
        const agent = await registerAgent();
        const refused = [
          'http://127.0.0.1:9/hook',
          'http://169.254.169.254/latest/meta-data/',
          'http://10.0.0.1/hook',
          `http://localhost:${redirector.port}/hook`,
          redirector.url,
          'http://[::1]/hook',
          'http://[fd00:ec2::254]/hook',
          'http://[::ffff:169.254.169.254]/hook',
          'http://0.0.0.0/hook',
          'http://2130706433/hook',
          'ftp://example.com/hook',
          'http://user:pw@example.com/hook',
        ];
        for (const url of refused) {
          const res = await request(app).post('/api/sdk/webhooks').set(asAgent(agent)).send({ url });
          assert.equal(res.status, 422, `${url}: ${JSON.stringify(res.body)}`);
          assert.ok(res.body.fix, `${url} is refused with a fix`);
        }
        assert.equal(redirector.got.length, 0);
        const list = await request(app).get('/api/sdk/webhooks').set(asAgent(agent)).expect(200);
        assert.deepEqual(list.body, { webhooks: [], count: 0 });
      } finally {
        await redirector.close();
      }
    });

    it('with WEBHOOK_ALLOW_LOOPBACK, link-local, metadata and private ranges stay refused', async () => {
      const agent = await registerAgent();
      for (const url of [
        'http://169.254.169.254/',
        'http://169.254.10.1/',
        'http://10.0.0.1/',
        'http://172.16.5.4/',
        'http://192.168.1.1/',
        'http://100.64.0.1/',
        'http://[fd00:ec2::254]/',
        'http://[fe80::1]/',
        'http://[fc00::1]/',
      ]) {
        const res = await register(agent, { url });
        assert.equal(res.status, 422, `${url}: ${JSON.stringify(res.body)}`);
        assert.match(res.body.detail[0].msg, /link-local|metadata|private|carrier-grade|unique local/);
      }
    });

    it('a receiver that became unsafe after registration is refused at connect time (nothing is sent)', async () => {
      const rx = await receiver();
      try {
        const agent = await registerAgent();
        const hook = await register(agent, { url: `http://localhost:${rx.port}/hook` }).expect(200);
        const { deps } = guarded();
        await assert.rejects(
          deliverTestEvent(deps, hook.body.id),
          /refused: .*localhost does not resolve to a public address/,
        );
        assert.equal(rx.got.length, 0);
        const w = await webhookOf(agent, hook.body.id);
        assert.equal(w.consecutive_failures, 1);
      } finally {
        await rx.close();
      }
    });

    it('when a URL spells loopback, NAT64, 6to4, a documentation range or this host in a form a range list misses, then registration refuses it, loopback allowed or not', async () => {
      const { app } = guarded();
      const agent = await registerAgent();
      for (const host of internalHostSpellings())
        for (const target of [app, testContext().app]) {
          const res = await request(target)
            .post('/api/sdk/webhooks')
            .set(asAgent(agent))
            .send({ url: `https://${host}:8443/hook` });
          assert.equal(res.status, 422, `${host}: ${JSON.stringify(res.body)}`);
        }
      const list = await api().get('/api/sdk/webhooks').set(asAgent(agent)).expect(200);
      assert.equal(list.body.count, 0);
    });

    it('when a name resolved to a public address at registration and resolves to loopback at delivery, then the delivery is refused and nothing reaches the receiver', async () => {
      const rx = await receiver();
      try {
        const { deps: guardedDeps, app } = guarded();
        const answers = { now: '93.184.215.14' };
        const deps = {
          ...guardedDeps,
          resolveHost: async () => [{ address: answers.now, family: answers.now.includes(':') ? 6 : 4 }],
        };
        const agent = await registerAgent();
        const hook = await request(buildApp(deps, { operatorToken: testContext().operatorToken }))
          .post('/api/sdk/webhooks')
          .set(asAgent(agent))
          .send({ url: `http://rebind.example.com:${rx.port}/hook` });
        assert.equal(hook.status, 200, JSON.stringify(hook.body));
        answers.now = '127.0.0.1';
        await assert.rejects(deliverTestEvent(deps, hook.body.id), /refused/);
        assert.equal(rx.got.length, 0);
        const w = (await request(app).get('/api/sdk/webhooks').set(asAgent(agent)).expect(200)).body
          .webhooks[0];
        assert.equal(w.consecutive_failures, 1);
        assert.match(w.last_error, /refused/);
        assert.ok(
          !w.last_error.includes('127.0.0.1'),
          `last_error names the internal address: ${w.last_error}`,
        );
      } finally {
        await rx.close();
      }
    });

    it('when a webhook stored before the guard knew them points at an internal spelling, then each delivery is refused there', async () => {
      const { Webhook } = testContext().deps.models;
      const agent = await registerAgent();
      for (const host of internalHostSpellings()) {
        const hook = await Webhook.create({
          _id: randomUUID(),
          agentId: agent.agent_id,
          url: `https://${host}:8443/hook`,
          events: ['trade.executed'],
          secret: null,
        });
        await assert.rejects(
          deliverWebhook(testContext().deps, {
            webhookId: hook._id,
            eventId: `webhook.test.${randomUUID()}`,
            type: 'webhook.test',
            createdAt: new Date().toISOString(),
            data: {},
          }),
          /refused: /,
          `${host} must be refused at delivery`,
        );
      }
    });

    it('when deliveries fail at the connection level (refused, reset, a plain-HTTP port spoken TLS to), then last_error is one message that does not tell them apart', async () => {
      const closedPort = await new Promise<number>((resolve) => {
        const s = net.createServer().listen(0, '127.0.0.1', () => {
          const { port } = s.address() as AddressInfo;
          s.close(() => resolve(port));
        });
      });
      const resetter = net.createServer((socket) => socket.resetAndDestroy());
      await new Promise<void>((r) => resetter.listen(0, '127.0.0.1', r));
      const plain = await receiver();
      try {
        const urls = [
          `http://127.0.0.1:${closedPort}/hook`,
          `http://127.0.0.1:${(resetter.address() as AddressInfo).port}/hook`,
          `https://127.0.0.1:${plain.port}/hook`,
        ];
        const errors = await Promise.all(
          urls.map(
            async (url) => (await testEventUntil(url, (w) => w.consecutive_failures >= 1)).w.last_error,
          ),
        );
        assert.deepEqual(
          errors,
          urls.map(() => 'could not connect to the webhook URL'),
        );
      } finally {
        await plain.close();
        await new Promise((r) => resetter.close(r));
      }
    });

    it('production takes https only and refuses WEBHOOK_ALLOW_LOOPBACK', () => {
      assert.throws(
        () => parseWebhookUrl('http://example.com/hook', { allowLoopback: false, httpsOnly: true }),
        UnsafeWebhookUrl,
      );
      assert.equal(
        parseWebhookUrl('https://example.com/hook', { allowLoopback: false, httpsOnly: true }).host,
        'example.com',
      );
      assert.throws(
        () => loadEnv({ NODE_ENV: 'production', WEBHOOK_ALLOW_LOOPBACK: 'true' }),
        (err: unknown) => err instanceof ConfigError && /WEBHOOK_ALLOW_LOOPBACK/.test(err.message),
      );
    });
  });
});
