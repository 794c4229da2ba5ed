import assert from 'node:assert/strict';
import express from 'express';
import request from 'supertest';
import { errorHandler } from '../../api/http/error-handler.js';
import { NeverRetry, RetryLater, VenueOutage } from '../../shared/infra/queue/job-errors.js';
import { requestLogging } from '../../api/http/observability.js';
import { testContext } from '../support/context.js';
import { api, randomIp } from '../support/http.js';

describe('HTTP error model #integration', () => {
  it('when the body is malformed JSON, then 400 JSON with detail, error and fix', async () => {
    const res = await api()
      .post('/api/sdk/agents/register')
      .set('X-Forwarded-For', randomIp())
      .set('Content-Type', 'application/json')
      .send('{"name": ');
    assert.equal(res.status, 400);
    assert.match(res.headers['content-type'] ?? '', /application\/json/);
    assert.match(res.body.detail, /^Malformed JSON body/);
    assert.equal(res.body.error, res.body.detail);
    assert.equal(typeof res.body.fix, 'string');
  });

  it('when the body exceeds the size limit, then 413 JSON', async () => {
    const res = await api()
      .post('/api/sdk/agents/register')
      .set('X-Forwarded-For', randomIp())
      .send({ name: 'big', description: 'x'.repeat(200 * 1024) });
    assert.equal(res.status, 413);
    assert.match(res.body.detail, /Request body too large \(limit 102400 bytes\)/);
    assert.equal(res.body.error, res.body.detail);
    assert.equal(typeof res.body.fix, 'string');
  });

  for (const [method, path] of [
    ['get', '/api/sdk/nope'],
    ['post', '/api/sdk/agents/nope'],
    ['delete', '/api/sdk/agents/me'],
    ['get', '/nothing-here'],
  ] as const) {
    it(`when ${method.toUpperCase()} ${path} is not a route, then 404 JSON (never HTML)`, async () => {
      const res = await api()[method](path);
      assert.equal(res.status, 404);
      assert.match(res.headers['content-type'] ?? '', /application\/json/);
      assert.equal(res.body.detail, `Not found: ${method.toUpperCase()} ${path}`);
      assert.equal(res.body.error, res.body.detail);
      assert.match(res.body.fix, /\/docs/);
    });
  }

  it('when a value has the wrong type, then 422 lists loc, msg, type, input and ctx for it', async () => {
    const res = await api()
      .post('/api/sdk/agents/register')
      .set('X-Forwarded-For', randomIp())
      .send({ name: 42, homepage: 'not a url' });
    assert.equal(res.status, 422);
    const byField = Object.fromEntries(res.body.detail.map((d: { loc: string[] }) => [d.loc.join('.'), d]));
    assert.equal(byField['body.name'].type, 'invalid_type');
    assert.equal(byField['body.name'].input, 42);
    assert.equal(byField['body.name'].ctx.expected, 'string');
    assert.equal(byField['body.homepage'].input, 'not a url');
    assert.match(res.body.error, /^Validation failed: /);
    assert.equal(typeof res.body.fix, 'string');
  });

  it('when a handler throws an unexpected error, then 500 JSON carries a request id and no stack', async () => {
    const app = express();
    app.use(requestLogging(testContext().deps.log));
    app.get('/boom', () => {
      throw new Error('secret internals at /srv/app.ts:12');
    });
    app.use(errorHandler);
    const res = await request(app).get('/boom').set('X-Request-Id', 'req-abc-12345');
    assert.equal(res.status, 500);
    assert.equal(res.body.detail, 'Internal server error');
    assert.equal(res.body.error, 'Internal server error');
    assert.equal(res.body.request_id, 'req-abc-12345');
    assert.equal(res.headers['x-request-id'], 'req-abc-12345');
    assert.ok(!JSON.stringify(res.body).includes('secret internals'));
  });

  it("when a job's typed failure reaches a request, then a missing target is a 404, a broken job a 500, work not ready or a venue outage a retryable 503, each with detail, error, fix and its code", async () => {
    const failures = {
      missing: new NeverRetry('trade_not_found', 'Trade t-1 not found', 'Check the id.', { missing: true }),
      broken: new NeverRetry('venue_order_missing', 'Trade t-1 has no venue order', 'This is a bug.'),
      later: new RetryLater('trade_not_claimed', 'Trade t-1 could not be claimed', 'The job tries again.'),
      outage: new VenueOutage('venue_unavailable', 'The venue did not confirm the order yet', 'Retry soon.'),
    };
    const app = express();
    app.get('/fail/:kind', (req) => {
      throw failures[req.params.kind as keyof typeof failures];
    });
    app.use(errorHandler);
    const expected = { missing: [404, false], broken: [500, false], later: [503, true], outage: [503, true] };
    for (const [kind, [status, retryable]] of Object.entries(expected)) {
      const failure = failures[kind as keyof typeof failures];
      const res = await request(app).get(`/fail/${kind}`);
      assert.equal(res.status, status, kind);
      assert.equal(res.body.detail, failure.message);
      assert.equal(res.body.error, failure.message);
      assert.equal(res.body.fix, failure.fix);
      assert.equal(res.body.error_code, failure.code);
      assert.equal(res.body.retryable, retryable, kind);
    }
  });

  it('every response carries an X-Request-Id', async () => {
    const res = await api().get('/api/sdk/health');
    assert.match(res.headers['x-request-id'] ?? '', /^[0-9a-f-]{36}$/);
  });
});
