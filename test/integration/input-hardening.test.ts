import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import type { Express } from 'express';
import { buildApp } from '../../api/app.js';
import { capturingLogger } from '../support/capture.js';
import { testContext } from '../support/context.js';
import { agentWithMarket, trade } from '../support/factories.js';
import { api, randomIp, registerAgent, type RegisteredAgent } from '../support/http.js';

const asAgent = (a: RegisteredAgent) => ({ Authorization: `Bearer ${a.api_key}` });

/** The contract's error body: JSON with `detail`, the same text in `error`, and a `fix`. */
function assertErrorBody(res: {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}) {
  assert.match(res.headers['content-type'] ?? '', /application\/json/);
  assert.equal(typeof res.body.fix, 'string', JSON.stringify(res.body));
  assert.ok(res.body.error, JSON.stringify(res.body));
}

describe('input hardening: no 500 from what a caller sends #integration', () => {
  describe('sort keys', () => {
    for (const sort of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      it(`when GET /api/sdk/markets?sort=${sort}, then 200 with the default order and a warning naming the valid sorts`, async () => {
        const { agent } = await agentWithMarket();
        const res = await api().get(`/api/sdk/markets?sort=${sort}`).set(asAgent(agent));
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.match(res.body.warning, new RegExp(`Unknown sort '${sort}' ignored`));
        assert.match(res.body.warning, /Valid values: volume, recent, created/);
      });
    }
  });

  describe('request bodies the parser refuses', () => {
    for (const encoding of ['gzip', 'deflate', 'br']) {
      it(`when a ${encoding} body is corrupt, then 400 JSON with a fix (no auth needed), never a 500`, async () => {
        const res = await postRaw(
          testContext().app,
          '/api/sdk/agents/register',
          encoding,
          Buffer.from('not compressed'),
        );
        assert.equal(res.status, 400, JSON.stringify(res.body));
        assertErrorBody(res);
        assert.match(res.body.detail as string, new RegExp(`${encoding} body`, 'i'));
      });
    }

    it('when a gzip body is valid, then it is read as usual', async () => {
      const body = gzipSync(JSON.stringify({ name: 'gzipped' }));
      const res = await postRaw(testContext().app, '/api/sdk/agents/register', 'gzip', body);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(typeof res.body.api_key, 'string', 'registered: the required name was read');
    });

    it('when the content encoding is unknown, then 415 naming it, with a fix', async () => {
      const res = await postRaw(testContext().app, '/api/sdk/agents/register', 'zstd-ish', Buffer.from('{}'));
      assert.equal(res.status, 415, JSON.stringify(res.body));
      assertErrorBody(res);
      assert.match(res.body.detail as string, /zstd-ish/);
    });

    it('when a body is sent as text/plain, then 415 naming the content type, not "Field required"', async () => {
      const res = await api()
        .post('/api/sdk/agents/register')
        .set('X-Forwarded-For', randomIp())
        .set('Content-Type', 'text/plain')
        .send('{"name": "plain"}');
      assert.equal(res.status, 415, JSON.stringify(res.body));
      assertErrorBody(res);
      assert.match(res.body.detail as string, /text\/plain/);
      assert.match(res.body.fix as string, /application\/json/);
    });

    it('when a JSON body has a charset other than UTF-8, then 415 naming it', async () => {
      const res = await api()
        .post('/api/sdk/agents/register')
        .set('X-Forwarded-For', randomIp())
        .set('Content-Type', 'application/json; charset=klingon')
        .send('{"name": "x"}');
      assert.equal(res.status, 415, JSON.stringify(res.body));
      assertErrorBody(res);
      assert.match(res.body.detail as string, /klingon/);
    });

    it('when a route takes a body and none is sent, then its fields are reported missing (422), as before', async () => {
      const res = await api().post('/api/sdk/agents/register').set('X-Forwarded-For', randomIp());
      assert.equal(res.status, 422, JSON.stringify(res.body));
    });

    it('when the parser refuses a body, then the log line is a warning without a stack', async () => {
      const ctx = testContext();
      const { log, lines } = capturingLogger('info', 'parser-errors');
      const app = buildApp({ ...ctx.deps, log }, { operatorToken: ctx.operatorToken });
      const res = await postRaw(app, '/api/sdk/agents/register', 'gzip', Buffer.from('corrupt'));
      assert.equal(res.status, 400);
      const entries = lines.map((l) => JSON.parse(l) as { level: number; err?: { stack?: string } });
      assert.ok(!entries.some((e) => e.level >= 50), `no error-level line: ${lines.join('')}`);
      assert.ok(
        entries.some((e) => e.level === 40),
        `a warning: ${lines.join('')}`,
      );
      assert.ok(!lines.join('').includes('    at '), `no stack: ${lines.join('')}`);
    });
  });

  describe('paths that do not decode', () => {
    for (const path of ['/api/sdk/markets/%E0%A4%A', '/api/sdk/context/%ZZ', '/api/sdk/agents/claim/%FF']) {
      it(`when GET ${path} (a malformed percent-encoding), then 400 JSON with a fix, never a 500`, async () => {
        const res = await api().get(path);
        assert.equal(res.status, 400, JSON.stringify(res.body));
        assertErrorBody(res);
        assert.match(res.body.detail as string, /percent-encoding/);
      });
    }
  });

  describe('URLs that do not parse', () => {
    it('when a skill is submitted with registry_url "not a url", then 422 on registry_url', async () => {
      const agent = await registerAgent();
      const res = await api()
        .post('/api/sdk/skills')
        .set(asAgent(agent))
        .send({ slug: 'not-a-url', name: 'x', description: 'y', registry_url: 'not a url' });
      assert.equal(res.status, 422, JSON.stringify(res.body));
      assert.ok(
        res.body.detail.some((d: { loc: string[] }) => d.loc.join('.') === 'body.registry_url'),
        JSON.stringify(res.body.detail),
      );
    });
  });

  describe('keys of free-form objects', () => {
    for (const [name, signal] of [
      ['a NUL', { 'a\u0000b': 1 }],
      ['a $-leading', { $where: 'sleep(1000)' }],
      ['a .-leading', { '.hidden': 1 }],
      ['a nested $-leading', { nested: { deeper: [{ $gt: 1 }] } }],
    ] as const) {
      it(`when signal_data has ${name} key, then 422 on signal_data and nothing is traded`, async () => {
        const { agent, market } = await agentWithMarket();
        const res = await trade(agent, {
          market_id: market._id,
          side: 'yes',
          amount: 1,
          signal_data: signal,
        });
        assert.equal(res.status, 422, JSON.stringify(res.body));
        assert.equal(res.body.detail[0].loc.slice(0, 2).join('.'), 'body.signal_data');
        assert.equal(typeof res.body.fix, 'string');
        const trades = await api().get('/api/sdk/trades').set(asAgent(agent)).expect(200);
        assert.equal(trades.body.trades.length, 0);
      });
    }

    it('when signal_data nests deeper than free-form values may (30 levels), then 422, never a 500', async () => {
      const { agent, market } = await agentWithMarket();
      let deep: Record<string, unknown> = { leaf: 1 };
      for (let i = 0; i < 30; i++) deep = { level: deep };
      const res = await trade(agent, { market_id: market._id, side: 'yes', amount: 1, signal_data: deep });
      assert.equal(res.status, 422, JSON.stringify(res.body).slice(0, 500));
      assert.match(res.body.detail[0].msg, /nested deeper than/);
    });

    it('when signal_data has ordinary keys (dots inside, unicode), then the trade goes through', async () => {
      const { agent, market } = await agentWithMarket();
      const res = await trade(agent, {
        market_id: market._id,
        side: 'yes',
        amount: 1,
        signal_data: { 'model.v2': 0.61, édge: [1, { ok: true }] },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.success, true, JSON.stringify(res.body));
    });
  });

  describe('object keys the database cannot store, anywhere in any body', () => {
    const nul = 'a\u0000b';
    const routes: [string, string, (market: string) => Record<string, unknown>, string[]][] = [
      [
        'a trade',
        '/api/sdk/trade',
        (m) => ({ market_id: m, side: 'yes', amount: 1, signal_data: { x: [{ [nul]: 1 }] } }),
        ['signal_data', 'x', '0', nul],
      ],
      [
        'a signed order',
        '/api/sdk/trade',
        (m) => ({ market_id: m, side: 'yes', amount: 1, signed_order: { [nul]: '1' } }),
        ['signed_order', nul],
      ],
      [
        'an experiment',
        '/api/sdk/autoresearch/experiments',
        () => ({
          skill_slug: 's',
          experiment_number: 1,
          segment: 0,
          status: 'keep',
          metric_name: 'm',
          metric_value: 1,
          metric_unit: '',
          best_direction: 'higher',
          secondary_metrics: { [nul]: 1 },
        }),
        ['secondary_metrics', nul],
      ],
      [
        'a research backtest',
        '/api/sdk/autoresearch/backtest',
        () => ({ skill_slug: 's', config: { [nul]: 1 } }),
        ['config', nul],
      ],
      [
        'a JSON-RPC call',
        '/api/rpc/polygon',
        () => ({ method: 'eth_call', params: [{ to: '0x0', [nul]: 1 }, 'latest'] }),
        ['params', '0', nul],
      ],
      [
        'a fixed shape (registration)',
        '/api/sdk/agents/register',
        () => ({ name: 'keyed', [nul]: 1 }),
        [nul],
      ],
    ];
    for (const [name, path, body, loc] of routes) {
      it(`when ${name} has a NUL in a key, then 422 body_key_invalid with loc naming the key and a fix, never a 500`, async () => {
        const { agent, market } = await agentWithMarket();
        const res = await api()
          .post(path)
          .set(asAgent(agent))
          .set('X-Forwarded-For', randomIp())
          .send(body(market._id));
        assert.equal(res.status, 422, JSON.stringify(res.body));
        assert.equal(res.body.error_code, 'body_key_invalid');
        assert.deepEqual(res.body.detail[0].loc, ['body', ...loc]);
        assert.match(res.body.detail[0].msg, /NUL/);
        assertErrorBody(res);
      });
    }

    it('when /openapi.json describes bodies, then it names body_key_invalid and the validation body carries error_code', async () => {
      const doc = (await api().get('/openapi.json').expect(200)).body;
      assert.match(doc.info.description, /body_key_invalid/);
      assert.ok(doc.components.schemas.ValidationError.properties.error_code, 'error_code documented');
    });
  });

  describe('nesting depth', () => {
    const nested = (levels: number) => `${'['.repeat(levels)}1${']'.repeat(levels)}`;

    it('when JSON-RPC params nest 20,000 levels (~40 kB), then 400 body_too_deep with a fix, never a 500', async () => {
      const agent = await registerAgent({ name: 'deep-rpc' });
      const res = await api()
        .post('/api/rpc/polygon')
        .set(asAgent(agent))
        .set('Content-Type', 'application/json')
        .send(`{"method":"eth_getBalance","params":${nested(20_000)}}`);
      assert.equal(res.status, 400, res.text.slice(0, 300));
      assert.equal(res.body.error_code, 'body_too_deep');
      assertErrorBody(res);
    });

    it('when JSON-RPC params nest deeper than free-form values may (25 levels), then 422 on params and nothing is relayed', async () => {
      const agent = await registerAgent({ name: 'deep-rpc' });
      const res = await api()
        .post('/api/rpc/polygon')
        .set(asAgent(agent))
        .set('Content-Type', 'application/json')
        .send(`{"method":"eth_getBalance","params":${nested(25)}}`);
      assert.equal(res.status, 422, res.text.slice(0, 300));
      assert.equal(res.body.detail[0].loc.slice(0, 2).join('.'), 'body.params');
      assert.match(res.body.detail[0].msg, /nested deeper than 20 levels/);
    });
  });
});

/**
 * POSTs bytes as they are, with a Content-Encoding, over a real socket (supertest re-encodes Buffer
 * bodies it is given together with a Content-Encoding header).
 */
async function postRaw(app: Express, path: string, encoding: string, body: Buffer) {
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const { port } = server.address() as AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}${path}`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'Content-Encoding': encoding,
        'X-Forwarded-For': randomIp(),
      },
      body,
    });
    return {
      status: res.status,
      headers: Object.fromEntries(res.headers) as Record<string, string>,
      body: (await res.json()) as Record<string, unknown>,
    };
  } finally {
    server.closeAllConnections();
    server.close();
  }
}
