import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { z } from 'zod';
import { CircuitBreaker } from '../../shared/infra/http/circuit-breaker.js';
import { VenueHttpClient, VenueHttpError } from '../../shared/infra/http/venue-http-client.js';
import { createVenueMetrics } from '../../shared/infra/http/venue-metrics.js';

/** A loopback stand-in for a venue: routes are set per test, every request is recorded. */
interface Received {
  method: string;
  url: string;
  body: string;
}
type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

interface FakeVenue {
  url: string;
  received: Received[];
  route(method: string, path: string, handler: Handler): void;
  close(): Promise<void>;
}

async function startFakeVenue(): Promise<FakeVenue> {
  const routes = new Map<string, Handler>();
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', body });
      const handler = routes.get(`${req.method} ${new URL(req.url ?? '/', 'http://x').pathname}`);
      if (handler) handler(req, res, body);
      else json(res, 404, { error: 'no such route' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    route: (method, path, handler) => routes.set(`${method} ${path}`, handler),
    close: () => {
      server.closeAllConnections(); // drops the requests a timeout test left hanging
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

function json(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** Answers from a script, one entry per request; the last entry repeats. */
function sequence(...steps: Handler[]): Handler {
  let i = 0;
  return (req, res, body) => steps[Math.min(i++, steps.length - 1)]!(req, res, body);
}

const Market = z.object({ id: z.string(), price: z.number() });
const ok: Handler = (_req, res) => json(res, 200, { id: 'm1', price: 0.42 });
const fail500: Handler = (_req, res) => json(res, 500, { error: 'upstream exploded' });

async function rejects(promise: Promise<unknown>): Promise<VenueHttpError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof VenueHttpError, `expected a VenueHttpError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected the call to fail');
}

describe('VenueHttpClient #unit', () => {
  let venue: FakeVenue;
  let registry: Registry;
  let clock: number;
  let sleeps: number[];
  let logLines: Record<string, unknown>[];

  beforeEach(async () => {
    venue = await startFakeVenue();
    registry = new Registry();
    clock = Date.parse('2030-01-01T00:00:00Z');
    sleeps = [];
    logLines = [];
  });
  afterEach(() => venue.close());

  function client(
    overrides: Partial<ConstructorParameters<typeof VenueHttpClient>[0]> = {},
  ): VenueHttpClient {
    return new VenueHttpClient({
      venue: 'testvenue',
      baseUrl: venue.url,
      timeoutMs: 1000,
      retries: 2,
      backoffMs: 10,
      metrics: createVenueMetrics(registry),
      log: pino({ level: 'debug' }, { write: (line: string) => logLines.push(JSON.parse(line)) }),
      now: () => clock,
      // Retry delays are recorded, not waited out.
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      ...overrides,
    });
  }

  async function count(outcome: string, endpoint = 'test.markets'): Promise<number> {
    const metric = registry.getSingleMetric('venue_requests_total');
    assert.ok(metric);
    const { values } = await metric.get();
    const hit = values.find(
      (v) => v.labels.outcome === outcome && v.labels.endpoint === endpoint && v.labels.venue === 'testvenue',
    );
    return hit?.value ?? 0;
  }

  describe('building the request', () => {
    it('when a query holds an array, then it is sent as repeated keys and undefined values are left out', async () => {
      venue.route('GET', '/markets', ok);
      await client().get('/markets', {
        endpoint: 'test.markets',
        query: { id: ['a', 2], active: true, limit: 5, cursor: undefined },
        schema: Market,
      });
      assert.equal(venue.received[0]?.url, '/markets?id=a&id=2&active=true&limit=5');
    });

    it('when the base URL has a path prefix, then the prefix is kept in front of the path', async () => {
      venue.route('GET', '/gamma/markets/m1', ok);
      const c = client({ baseUrl: `${venue.url}/gamma/` });
      const market = await c.get('/markets/m1', { endpoint: 'test.markets', schema: Market });
      assert.deepEqual(market, { id: 'm1', price: 0.42 });
      assert.equal(venue.received[0]?.url, '/gamma/markets/m1');
      assert.equal(c.baseUrl, `${venue.url}/gamma`);
    });

    it('when a path is absolute, protocol-relative or climbs out of the base, then it is refused without a request', async () => {
      const c = client({ baseUrl: `${venue.url}/gamma` });
      for (const path of [
        'http://169.254.169.254/latest',
        '//evil.example/x',
        'markets',
        '/a/../../admin',
        '/a/%2e%2e/admin',
        '/a/%2E%2E/admin',
        '/x\\..\\y',
        '/redirect?to=http://evil.example',
        '/a#frag',
        '/a b',
      ]) {
        const err = await rejects(c.get(path, { endpoint: 'test.markets', schema: Market }));
        assert.equal(err.kind, 'client', path);
        assert.equal(err.retryable, false);
        assert.match(err.message, /Refused venue path/);
      }
      assert.equal(venue.received.length, 0);
    });

    it('when POSTing, then the body is sent as JSON and the answer validated', async () => {
      venue.route('POST', '/orders', (_req, res, body) =>
        json(res, 201, { id: 'o1', echo: JSON.parse(body) }),
      );
      const answer = await client().post('/orders', {
        endpoint: 'test.orders',
        body: { side: 'buy', size: 3 },
        schema: z.object({ id: z.string(), echo: z.object({ side: z.string(), size: z.number() }) }),
      });
      assert.deepEqual(answer, { id: 'o1', echo: { side: 'buy', size: 3 } });
    });
  });

  describe('retries', () => {
    it('when a GET gets a 500 and then a 200, then it retries after a backoff and returns the answer', async () => {
      venue.route('GET', '/markets', sequence(fail500, ok));
      const c = client();
      const market = await c.get('/markets', { endpoint: 'test.markets', schema: Market });
      assert.equal(market.price, 0.42);
      assert.equal(venue.received.length, 2);
      assert.equal(sleeps.length, 1);
      assert.ok(sleeps[0]! >= 5 && sleeps[0]! <= 10, `first backoff ${sleeps[0]} within [base/2, base]`);
      assert.equal(await count('server_error'), 1);
      assert.equal(await count('ok'), 1);
      assert.equal(c.health().consecutive_failures, 0, 'a call that succeeded on retry is a success');
    });

    it('when every attempt gets a 5xx, then it gives up after the retries with a retryable http error', async () => {
      venue.route('GET', '/markets', fail500);
      const err = await rejects(client().get('/markets', { endpoint: 'test.markets', schema: Market }));
      assert.equal(err.kind, 'http');
      assert.equal(err.status, 500);
      assert.equal(err.retryable, true);
      assert.match(err.message, /upstream exploded/);
      assert.equal(venue.received.length, 3, '1 attempt + 2 retries');
      assert.equal(sleeps.length, 2);
      assert.ok(sleeps[1]! >= 10 && sleeps[1]! <= 20, 'the second backoff doubles');
    });

    it('when a 429 carries Retry-After, then the client waits that long before the retry', async () => {
      venue.route(
        'GET',
        '/markets',
        sequence((_req, res) => json(res, 429, {}, { 'retry-after': '2' }), ok),
      );
      await client().get('/markets', { endpoint: 'test.markets', schema: Market });
      assert.deepEqual(sleeps, [2000]);
      assert.equal(await count('rate_limited'), 1);
    });

    it('when Retry-After is longer than the cap, then it fails at once, retryable, with the wait', async () => {
      venue.route('GET', '/markets', (_req, res) =>
        json(res, 429, { error: 'slow down' }, { 'retry-after': '60' }),
      );
      const err = await rejects(client().get('/markets', { endpoint: 'test.markets', schema: Market }));
      assert.equal(err.status, 429);
      assert.equal(err.retryable, true);
      assert.equal(err.retryAfterMs, 60_000);
      assert.equal(venue.received.length, 1);
      assert.deepEqual(sleeps, []);
    });

    it('when the venue does not answer in time, then each attempt times out and the error kind is timeout', async () => {
      venue.route('GET', '/markets', () => undefined); // never answers: only the timeout ends an attempt
      const err = await rejects(
        client({ timeoutMs: 60, retries: 1 }).get('/markets', { endpoint: 'test.markets', schema: Market }),
      );
      assert.equal(err.kind, 'timeout');
      assert.equal(err.retryable, true);
      assert.equal(venue.received.length, 2);
      assert.equal(sleeps.length, 1, 'one backoff between the two attempts, recorded rather than waited');
      assert.equal(await count('timeout'), 2);
    });

    it('when the host refuses connections, then the error kind is network', async () => {
      const closed = await startFakeVenue();
      await closed.close();
      const err = await rejects(
        client({ baseUrl: closed.url, retries: 0 }).get('/markets', {
          endpoint: 'test.markets',
          schema: Market,
        }),
      );
      assert.equal(err.kind, 'network');
      assert.match(err.message, /ECONNREFUSED/);
      assert.equal(await count('network'), 1);
    });

    it('when a POST gets a 500, then it is not retried and not retryable (it may have been acted on)', async () => {
      venue.route('POST', '/orders', fail500);
      const err = await rejects(
        client().post('/orders', { endpoint: 'test.orders', body: {}, schema: z.unknown() }),
      );
      assert.equal(err.kind, 'http');
      assert.equal(err.retryable, false);
      assert.equal(venue.received.length, 1);
    });

    it('when a POST is declared idempotent, then a 500 is retried like a GET', async () => {
      venue.route(
        'POST',
        '/orders',
        sequence(fail500, (_req, res) => json(res, 200, { id: 'o1' })),
      );
      const answer = await client().post('/orders', {
        endpoint: 'test.orders',
        body: { client_order_id: 'c1' },
        schema: z.object({ id: z.string() }),
        idempotent: true,
      });
      assert.equal(answer.id, 'o1');
      assert.equal(venue.received.length, 2);
    });
  });

  describe('answers that are not a success', () => {
    it('when the venue answers 4xx, then a client error with its text is thrown, without retry or breaker failure', async () => {
      venue.route('GET', '/markets', (_req, res) => json(res, 400, { error: 'invalid market id' }));
      const c = client();
      const err = await rejects(c.get('/markets', { endpoint: 'test.markets', schema: Market }));
      assert.equal(err.kind, 'client');
      assert.equal(err.status, 400);
      assert.equal(err.retryable, false);
      assert.match(err.message, /invalid market id/);
      assert.equal(venue.received.length, 1);
      assert.equal(c.health().consecutive_failures, 0);
      assert.equal(c.health().last_error, null);
      assert.equal(await count('client_error'), 1);
    });

    it('when a 404 is expected as null, then null is returned and counted as not_found and a success', async () => {
      venue.route('GET', '/markets/gone', (_req, res) => json(res, 404, { error: 'not found' }));
      const c = client();
      assert.equal(
        await c.get('/markets/gone', { endpoint: 'test.markets', schema: Market, notFoundAs: 'null' }),
        null,
      );
      assert.equal(await count('not_found'), 1);
      assert.equal(c.health().last_success_at, new Date(clock).toISOString());
      const err = await rejects(c.get('/markets/gone', { endpoint: 'test.markets', schema: Market }));
      assert.equal(err.kind, 'client');
      assert.equal(err.status, 404);
    });

    it('when the body does not match the schema, then a schema error is logged with paths only, counted and thrown', async () => {
      venue.route('GET', '/markets', (_req, res) => json(res, 200, { id: 'm1', price: 'SECRET-0.42' }));
      const c = client();
      const err = await rejects(c.get('/markets', { endpoint: 'test.markets', schema: Market }));
      assert.equal(err.kind, 'schema');
      assert.equal(err.retryable, false);
      assert.deepEqual(err.issues, ['price: invalid_type']);
      assert.equal(venue.received.length, 1, 'a changed shape is not retried');
      assert.equal(await count('schema'), 1);
      assert.equal(c.health().consecutive_failures, 1, 'a schema mismatch counts against the breaker');
      const warn = logLines.find((l) => l.msg === 'venue answer does not match the expected schema');
      assert.deepEqual(warn?.issues, ['price: invalid_type']);
      assert.doesNotMatch(JSON.stringify(logLines), /SECRET/);
    });

    it('when the body is not JSON, then a schema error is thrown', async () => {
      venue.route('GET', '/markets', (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"id": "m1", "price": 0.4');
      });
      const err = await rejects(client().get('/markets', { endpoint: 'test.markets', schema: Market }));
      assert.equal(err.kind, 'schema');
      assert.match(err.message, /malformed JSON/);
    });
  });

  describe('circuit breaker', () => {
    it('when N calls in a row fail, then the circuit opens and further calls fail fast without a request', async () => {
      venue.route('GET', '/markets', fail500);
      const c = client({ retries: 0, breaker: { failureThreshold: 3, cooldownMs: 30_000 } });
      for (let i = 0; i < 3; i++) {
        await rejects(c.get('/markets', { endpoint: 'test.markets', schema: Market }));
      }
      assert.equal(venue.received.length, 3);
      const err = await rejects(c.get('/markets', { endpoint: 'test.markets', schema: Market }));
      assert.equal(err.kind, 'circuit_open');
      assert.equal(err.retryable, true);
      assert.equal(err.retryAfterMs, 30_000);
      assert.equal(venue.received.length, 3, 'no request while open');
      assert.equal(await count('circuit_open'), 1);
      assert.deepEqual(c.health(), {
        venue: 'testvenue',
        base_url: venue.url,
        circuit: 'open',
        last_success_at: null,
        last_error_at: new Date(clock).toISOString(),
        last_error: 'http: testvenue GET /markets: HTTP 500: upstream exploded',
        consecutive_failures: 3,
      });
      const gauge = await registry.getSingleMetricAsString('venue_circuit_state');
      assert.match(
        gauge,
        new RegExp(`venue_circuit_state\\{venue="testvenue",host="127\\.0\\.0\\.1:\\d+"\\} 2`),
      );
    });

    it('when the cool-down has passed, then one trial goes through and its success closes the circuit', async () => {
      venue.route('GET', '/markets', fail500);
      const c = client({ retries: 2, breaker: { failureThreshold: 2, cooldownMs: 10_000 } });
      await rejects(c.get('/markets', { endpoint: 'test.markets', schema: Market }));
      await rejects(c.get('/markets', { endpoint: 'test.markets', schema: Market }));
      assert.equal(c.health().circuit, 'open');
      clock += 9_999;
      assert.equal(
        (await rejects(c.get('/markets', { endpoint: 'test.markets', schema: Market }))).kind,
        'circuit_open',
      );
      clock += 1;
      assert.equal(c.health().circuit, 'half_open');
      assert.match(await registry.getSingleMetricAsString('venue_circuit_state'), /\} 1$/m);

      // The trial fails: straight back to open, and the trial is not retried.
      const before = venue.received.length;
      assert.equal(
        (await rejects(c.get('/markets', { endpoint: 'test.markets', schema: Market }))).kind,
        'http',
      );
      assert.equal(venue.received.length, before + 1);
      assert.equal(c.health().circuit, 'open');

      // After the next cool-down the trial succeeds: closed, failures forgotten.
      clock += 10_000;
      venue.route('GET', '/markets', ok);
      assert.equal((await c.get('/markets', { endpoint: 'test.markets', schema: Market })).id, 'm1');
      const health = c.health();
      assert.equal(health.circuit, 'closed');
      assert.equal(health.consecutive_failures, 0);
      assert.equal(health.last_success_at, new Date(clock).toISOString());
      assert.match(await registry.getSingleMetricAsString('venue_circuit_state'), /\} 0$/m);
    });

    it('when half-open, then only one trial request is let through at a time', () => {
      let now = 0;
      const breaker = new CircuitBreaker({ failureThreshold: 1, cooldownMs: 100, now: () => now });
      breaker.recordFailure();
      assert.equal(breaker.state, 'open');
      assert.equal(breaker.tryAcquire(), null);
      now = 100;
      const trial = breaker.tryAcquire();
      assert.deepEqual(trial, { trial: true });
      assert.equal(breaker.tryAcquire(), null, 'a second caller fails fast while the trial runs');
      breaker.release(trial!);
      assert.deepEqual(
        breaker.tryAcquire(),
        { trial: true },
        'a trial ended without a verdict frees the slot',
      );
      breaker.recordSuccess();
      assert.equal(breaker.state, 'closed');
    });
  });

  describe('metrics', () => {
    it('when several clients share a registry, then the metrics are registered once and shared', async () => {
      assert.equal(createVenueMetrics(registry), createVenueMetrics(registry));
      venue.route('GET', '/markets', ok);
      await client().get('/markets', { endpoint: 'test.markets', schema: Market });
      await client().get('/markets', { endpoint: 'test.markets', schema: Market });
      assert.equal(await count('ok'), 2);
      const duration = await registry.getSingleMetricAsString('venue_request_duration_seconds');
      assert.match(
        duration,
        /venue_request_duration_seconds_count\{venue="testvenue",endpoint="test\.markets"\} 2/,
      );
    });
  });
});
