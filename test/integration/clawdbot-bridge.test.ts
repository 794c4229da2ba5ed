import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { raiseRiskAlert } from '../../shared/domains/monitors/risk-alerts.js';
import {
  monitorId,
  type PositionMonitorRecord,
} from '../../shared/domains/monitors/position-monitor.model.js';
import { MAX_CONSECUTIVE_FAILURES } from '../../shared/domains/webhooks/webhook.model.js';
import { testContext } from '../support/context.js';
import { makeMarket, trade } from '../support/factories.js';
import { api, registerAgent, type RegisteredAgent } from '../support/http.js';
import { until } from '../support/until.js';

interface Received {
  raw: string;
  body: { id: string; type: string; data: Record<string, unknown> };
  headers: http.IncomingHttpHeaders;
}

/** A receiver on 127.0.0.1 (the tests allow loopback) that records every request and answers `status` (200). */
async function receiver(status = 200) {
  const got: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      got.push({ raw, body: JSON.parse(raw) as Received['body'], headers: req.headers });
      res.writeHead(status).end(status === 200 ? 'ok' : 'down');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/bridge`,
    got,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const asAgent = (a: RegisteredAgent) => ({ Authorization: `Bearer ${a.api_key}` });
const patch = (a: RegisteredAgent, body: Record<string, unknown>, path = '/api/sdk/settings') =>
  api().patch(path).set(asAgent(a)).send(body);

/** client-contract §3.3: the chat bridge settings the official client documents (`update_settings`). */
describe('the clawdbot chat bridge settings #integration', function () {
  this.timeout(30_000);

  it('when an agent sets clawdbot_webhook_url, chat id and channel, then both settings routes return them, the signing secret is answered once, and null clears them', async () => {
    const rx = await receiver();
    try {
      const agent = await registerAgent();
      const set = await patch(agent, {
        clawdbot_webhook_url: rx.url,
        clawdbot_chat_id: '-100123',
        clawdbot_channel: 'telegram',
      });
      assert.equal(set.status, 200, JSON.stringify(set.body));
      assert.equal(set.body.clawdbot_webhook_url, rx.url);
      assert.equal(set.body.clawdbot_chat_id, '-100123');
      assert.equal(set.body.clawdbot_channel, 'telegram');
      assert.match(set.body.clawdbot_webhook_secret, /^[0-9a-f]{64}$/);

      for (const path of ['/api/sdk/settings', '/api/sdk/user/settings']) {
        const read = await api().get(path).set(asAgent(agent)).expect(200);
        assert.equal(read.body.clawdbot_webhook_url, rx.url, path);
        assert.equal(read.body.clawdbot_chat_id, '-100123', path);
        assert.equal(read.body.clawdbot_channel, 'telegram', path);
        assert.ok(!('clawdbot_webhook_secret' in read.body), `${path} never shows the secret again`);
      }
      // The chat id alone changes; the URL and its secret stay.
      const chat = await patch(agent, { clawdbot_chat_id: '42' }, '/api/sdk/user/settings').expect(200);
      assert.equal(chat.body.clawdbot_chat_id, '42');
      assert.equal(chat.body.clawdbot_webhook_url, rx.url);
      assert.ok(!('clawdbot_webhook_secret' in chat.body));

      const cleared = await patch(agent, {
        clawdbot_webhook_url: null,
        clawdbot_chat_id: null,
        clawdbot_channel: null,
      }).expect(200);
      assert.equal(cleared.body.clawdbot_webhook_url, null);
      assert.equal(cleared.body.clawdbot_chat_id, null);
      assert.equal(cleared.body.clawdbot_channel, null);
      // Cleared, the bridge gets nothing from a trade.
      const market = await makeMarket();
      const t = await trade(agent, { market_id: market._id, side: 'yes', amount: 5, venue: 'sim' });
      assert.equal(t.body.success, true, JSON.stringify(t.body));
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(rx.got.length, 0);
    } finally {
      await rx.close();
    }
  });

  it('when clawdbot_webhook_url is internal, then the update is refused with the webhook guard’s reason and a fix, and nothing is stored', async () => {
    const agent = await registerAgent();
    for (const url of [
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1/bridge',
      'ftp://example.com/',
    ]) {
      const res = await patch(agent, { clawdbot_webhook_url: url });
      assert.equal(res.status, 422, `${url}: ${JSON.stringify(res.body)}`);
      assert.ok(res.body.fix, JSON.stringify(res.body));
      assert.match(JSON.stringify(res.body.detail), /clawdbot_webhook_url/);
    }
    const read = await api().get('/api/sdk/settings').set(asAgent(agent)).expect(200);
    assert.equal(read.body.clawdbot_webhook_url, null);
  });

  it('when the agent’s trade fills, then the bridge receives its trade.executed with the chat id and channel, signed with the bridge’s secret', async () => {
    const rx = await receiver();
    try {
      const agent = await registerAgent();
      const set = await patch(agent, {
        clawdbot_webhook_url: rx.url,
        clawdbot_chat_id: 'chat-7',
        clawdbot_channel: 'discord',
      }).expect(200);
      const secret = set.body.clawdbot_webhook_secret as string;
      const market = await makeMarket();
      const t = await trade(agent, { market_id: market._id, side: 'yes', amount: 10, venue: 'sim' });
      assert.equal(t.body.success, true, JSON.stringify(t.body));
      const got = await until(
        async () => rx.got,
        (g) => g.length >= 1,
      );
      const d = got[0]!;
      assert.equal(d.body.type, 'trade.executed');
      assert.equal(d.body.id, `trade.executed.${t.body.trade_id}`);
      assert.equal(d.body.data.trade_id, t.body.trade_id);
      assert.equal(d.body.data.chat_id, 'chat-7');
      assert.equal(d.body.data.channel, 'discord');
      assert.equal(d.headers['x-simmer-signature'], createHmac('sha256', secret).update(d.raw).digest('hex'));
      // Once per event: nothing more arrives.
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(rx.got.filter((g) => g.body.type === 'trade.executed').length, 1);
    } finally {
      await rx.close();
    }
  });

  it('when a risk alert is raised for the agent, then the bridge receives it as risk.alert with the chat id and channel, once', async () => {
    const rx = await receiver();
    try {
      const agent = await registerAgent();
      await patch(agent, {
        clawdbot_webhook_url: rx.url,
        clawdbot_chat_id: 'chat-9',
        clawdbot_channel: 'slack',
      }).expect(200);
      const market = await makeMarket();
      const m = {
        _id: monitorId(agent.agent_id, market._id, 'sim', 'yes'),
        agentId: agent.agent_id,
        marketId: market._id,
        venue: 'sim',
        side: 'yes',
        generation: 1,
        exitSharesMicro: 5_000_000,
        exitReason: 'stop_loss',
        triggerPrice: 0.2,
      } as PositionMonitorRecord;
      const { deps } = testContext();
      // Raised twice (a retried exit): one delivery.
      await raiseRiskAlert(deps, m, 'market_cooldown');
      await raiseRiskAlert(deps, m, 'market_cooldown');
      const got = await until(
        async () => rx.got,
        (g) => g.length >= 1,
      );
      assert.equal(got[0]!.body.type, 'risk.alert');
      assert.equal(got[0]!.body.data.market_id, market._id);
      assert.equal(got[0]!.body.data.shares, 5);
      assert.equal(got[0]!.body.data.exit_refused, 'market_cooldown');
      assert.equal(got[0]!.body.data.chat_id, 'chat-9');
      assert.equal(got[0]!.body.data.channel, 'slack');
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(rx.got.length, 1);
    } finally {
      await rx.close();
    }
  });
  it(`when the bridge keeps failing, then after ${MAX_CONSECUTIVE_FAILURES} consecutive failures it is switched off, the settings say so and how to turn it back on, and setting the URL again does`, async () => {
    const down = await receiver(500);
    const up = await receiver();
    try {
      const agent = await registerAgent();
      await patch(agent, { clawdbot_webhook_url: down.url, clawdbot_chat_id: 'c-1' }).expect(200);
      const fresh = await api().get('/api/sdk/settings').set(asAgent(agent)).expect(200);
      assert.equal(fresh.body.clawdbot_webhook_active, true);
      assert.equal(fresh.body.clawdbot_webhook_consecutive_failures, 0);
      assert.equal(fresh.body.clawdbot_webhook_fix, null);

      const market = await makeMarket();
      const first = await trade(agent, { market_id: market._id, side: 'yes', amount: 5, venue: 'sim' });
      assert.equal(first.body.success, true, JSON.stringify(first.body));
      const off = await until(
        async () => (await api().get('/api/sdk/settings').set(asAgent(agent)).expect(200)).body,
        (b) => b.clawdbot_webhook_active === false,
        30_000,
      );
      assert.equal(off.clawdbot_webhook_active, false, JSON.stringify(off));
      assert.equal(off.clawdbot_webhook_consecutive_failures, MAX_CONSECUTIVE_FAILURES);
      assert.match(off.clawdbot_webhook_last_error, /500/);
      assert.equal(off.clawdbot_webhook_last_delivery_at, null);
      assert.match(off.clawdbot_webhook_fix, /set clawdbot_webhook_url again/);
      assert.equal(down.got.length, MAX_CONSECUTIVE_FAILURES);
      assert.equal(new Set(down.got.map((g) => g.body.id)).size, 1, 'one event, retried');

      // Switched off: a later event is not sent.
      const second = await trade(agent, { market_id: market._id, side: 'yes', amount: 5, venue: 'sim' });
      assert.equal(second.body.success, true, JSON.stringify(second.body));
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(down.got.length, MAX_CONSECUTIVE_FAILURES);

      // Set again (here to a working receiver): on, with a clean record, and delivered to.
      const again = await patch(agent, { clawdbot_webhook_url: up.url }).expect(200);
      assert.equal(again.body.clawdbot_webhook_active, true);
      assert.equal(again.body.clawdbot_webhook_consecutive_failures, 0);
      assert.equal(again.body.clawdbot_webhook_last_error, null);
      assert.equal(again.body.clawdbot_webhook_fix, null);
      const third = await trade(agent, { market_id: market._id, side: 'yes', amount: 5, venue: 'sim' });
      assert.equal(third.body.success, true, JSON.stringify(third.body));
      await until(
        async () => up.got,
        (g) => g.length >= 1,
      );
      assert.equal(up.got[0]!.body.data.trade_id, third.body.trade_id);
      const on = await until(
        async () => (await api().get('/api/sdk/settings').set(asAgent(agent)).expect(200)).body,
        (b) => b.clawdbot_webhook_last_delivery_at !== null,
      );
      assert.equal(typeof on.clawdbot_webhook_last_delivery_at, 'string');
      assert.equal(on.clawdbot_webhook_consecutive_failures, 0);
    } finally {
      await down.close();
      await up.close();
    }
  });
});
