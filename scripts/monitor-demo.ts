// `npm run demo:monitors -- [--base-url <url>]`: the stop-loss acceptance flow of issue 15 against
// a running `npm start` whose webhooks may deliver to loopback (WEBHOOK_ALLOW_LOOPBACK=true, refused
// in production):
//   1. A local receiver on 127.0.0.1 checks every delivery's X-Simmer-Signature (HMAC-SHA256 of the
//      raw body with the webhook's secret).
//   2. Agent A turns auto_risk_monitor_enabled on with a 20% default stop, registers the receiver for
//      trade.executed, and buys YES on a sim market: the buy arms the monitor.
//   3. Other agents buy NO until A's position has lost 20%.
//   4. The scheduled evaluation (every RISK_MONITOR_SECONDS) sells A's shares: the sell shows in
//      GET /api/sdk/trades with source "risk-monitor", and its trade.executed event arrives signed.
// Each request is printed with its HTTP status; the first unexpected answer stops with exit code 1.
import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  api,
  arg,
  DemoFailure,
  expect,
  heading,
  registerAgent,
  runDemo,
  show,
  waitFor,
  type Json,
} from './demo-support.js';

const waitMs = Number(arg('wait-seconds') ?? 120) * 1000;
const STOP = 0.2;

interface Delivery {
  body: Json;
  signature: string | undefined;
  valid: boolean;
}

/** A webhook receiver on 127.0.0.1 that verifies each signature as a receiver should. */
async function receiver(secret: string) {
  const got: Delivery[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const signature = req.headers['x-simmer-signature'] as string | undefined;
      const valid = signature === createHmac('sha256', secret).update(raw).digest('hex');
      got.push({ body: JSON.parse(raw.toString('utf8')) as Json, signature, valid });
      res.writeHead(valid ? 200 : 401).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hooks`, got, close: () => server.close() };
}

/** Registration is limited per IP (10 a minute): a demo run right after another waits its turn. */
async function registerPusher(name: string) {
  for (;;) {
    try {
      return await registerAgent(name);
    } catch (err) {
      if (!(err instanceof DemoFailure) || err.status !== 429) throw err;
      console.log('  (registration limit for this IP: waiting a minute)');
      await new Promise((r) => setTimeout(r, 60_000));
    }
  }
}

runDemo(async () => {
  const secret = randomBytes(16).toString('hex');
  const rx = await receiver(secret);
  try {
    heading('1. Agent A: auto stop-loss at 20%, a webhook, a sim buy');
    const a = await registerAgent('monitor-demo-a');
    const settings = await api('PATCH', '/api/sdk/user/settings', {
      auth: a.apiKey,
      body: { auto_risk_monitor_enabled: true, default_stop_loss_pct: STOP },
    });
    show({
      auto_risk_monitor_enabled: settings.auto_risk_monitor_enabled,
      default_stop_loss_pct: settings.default_stop_loss_pct,
    });
    const hook = await api('POST', '/api/sdk/webhooks', {
      auth: a.apiKey,
      body: { url: rx.url, events: ['trade.executed'], secret },
    });
    show({ webhook_id: hook.id, url: hook.url, events: hook.events });
    const markets = await api('GET', '/api/sdk/markets?venue=sim&status=active&limit=20', { auth: a.apiKey });
    const market = (markets.markets as Json[])[0]!;
    expect(market, 'a sim market to trade', markets);
    const marketId = String(market.id);
    show({ market_id: marketId, question: market.question, current_price: market.current_price });
    const buy = await api('POST', '/api/sdk/trade', {
      auth: a.apiKey,
      body: { market_id: marketId, side: 'yes', amount: 100, venue: 'sim', reasoning: 'monitor demo' },
    });
    expect(buy.success === true, 'the buy fills', buy);
    show({
      trade_id: buy.trade_id,
      shares_bought: buy.shares_bought,
      cost: buy.cost,
      new_price: buy.new_price,
    });
    const monitors = await waitFor(
      'the monitor armed by the buy',
      () => api('GET', '/api/sdk/positions/monitors', { auth: a.apiKey, quiet: true }),
      (m) => Number(m.count) === 1,
      { timeoutMs: 10_000, everyMs: 500 },
    );
    show({ monitors: JSON.stringify(monitors.monitors) });

    heading('2. Other agents buy NO until A has lost 20%');
    const pnl = async () => {
      const p = await api('GET', '/api/sdk/positions?venue=sim', { auth: a.apiKey, quiet: true });
      const row = (p.positions as Json[]).find((x) => x.market_id === marketId);
      return row ? Number(row.pnl) / Number(row.cost_basis) : 0;
    };
    for (let i = 0; i < 8 && (await pnl()) > -STOP; i++) {
      const b = await registerPusher(`monitor-demo-pusher-${i + 1}`);
      const push = await api('POST', '/api/sdk/trade', {
        auth: b.apiKey,
        body: { market_id: marketId, side: 'no', amount: 500, venue: 'sim' },
      });
      expect(push.success === true, 'the push fills', push);
      show({
        pushed_by: b.agentId,
        new_no_price: push.new_price,
        a_pnl_pct: Math.round((await pnl()) * 1000) / 10,
      });
    }
    expect((await pnl()) <= -STOP, 'A has lost at least 20%');

    heading('3. The stop-loss sells A’s shares (scheduled evaluation)');
    const trades = await waitFor(
      'a risk-monitor sell in GET /api/sdk/trades',
      () => api('GET', '/api/sdk/trades?venue=sim', { auth: a.apiKey, quiet: true }),
      (t) => (t.trades as Json[]).some((x) => x.source === 'risk-monitor'),
      { timeoutMs: waitMs },
    );
    const sell = (trades.trades as Json[]).find((x) => x.source === 'risk-monitor')!;
    show({
      trade_id: sell.id,
      action: sell.action,
      side: sell.side,
      shares: sell.shares,
      source: sell.source,
      status: sell.status,
    });
    expect(sell.action === 'sell', 'the monitor sold', sell);
    const after = await api('GET', '/api/sdk/positions/monitors', { auth: a.apiKey });
    show({ monitors_left: after.count });

    heading('4. The signed trade.executed of the sell at the local receiver');
    const delivered = await waitFor(
      'the sell’s trade.executed delivery',
      async () => rx.got,
      (g) => g.some((d) => (d.body.data as Json).trade_id === sell.id),
      { timeoutMs: 60_000, everyMs: 500 },
    );
    for (const d of delivered)
      show({
        event: d.body.type,
        id: d.body.id,
        source: (d.body.data as Json).source,
        action: (d.body.data as Json).action,
        signature: `${d.signature?.slice(0, 16)}…`,
        signature_valid: d.valid,
      });
    expect(
      delivered.every((d) => d.valid),
      'every delivery carries a valid X-Simmer-Signature',
    );
    console.log('\nDemo complete.');
  } finally {
    rx.close();
  }
});
