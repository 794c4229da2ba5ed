import assert from 'node:assert/strict';
import { apiRole } from '../../api/server.js';
import type { RunningRole } from '../../shared/composition/role.js';
import {
  publishReactorEvents,
  reactorStreamKey,
  type ReactorStreamEvent,
} from '../../shared/domains/reactor/reactor-event-stream.js';
import { freePort } from '../support/capture.js';
import { testContext } from '../support/context.js';
import { openEventStream, type EventStreamReader } from '../support/event-stream.js';
import { api, registerAgent, type RegisteredAgent } from '../support/http.js';
import { asAgent, claimedAgent } from '../support/polymarket-traders.js';
import { asUser } from '../support/users.js';

const STREAM_MAXLEN = 10_000;

/** An API role of its own on a free port, with a heartbeat short enough to see in a test. */
async function startApi(env: Record<string, unknown> = {}): Promise<{ url: string; role: RunningRole }> {
  const { deps } = testContext();
  const port = await freePort();
  const role = await apiRole.start({
    ...deps,
    env: { ...deps.env, PORT: port, HOST: '127.0.0.1', REACTOR_HEARTBEAT_SECONDS: 0.1, ...env },
  });
  return { url: `http://127.0.0.1:${port}`, role };
}

let signalSeq = 0;

/** Appends one entry per agent id, as the reactor workers do; answers their stream ids. */
function publish(agentIds: string[], event: ReactorStreamEvent = 'reactor_event'): Promise<string[]> {
  const { deps } = testContext();
  return publishReactorEvents(
    deps.redis,
    deps.env.QUEUE_PREFIX,
    STREAM_MAXLEN,
    agentIds.map((agentId) => ({
      agentId,
      event,
      data: {
        whale_wallet: '0x1111111111111111111111111111111111111111',
        side: 'BUY',
        size: 120,
        price: 0.42,
        market_title: `Signal ${++signalSeq}`,
        market_slug: `signal-${signalSeq}`,
        whale_label: null,
        for: agentId,
      },
    })),
  );
}

/**
 * Opens the agent's stream and waits for its preamble: from then on every entry appended reaches
 * it. Asks for gzip, as httpx does: an event stream must come uncompressed all the same.
 */
async function connect(
  url: string,
  agent: RegisteredAgent,
  headers: Record<string, string> = {},
  path = '/api/sdk/reactor/stream',
): Promise<EventStreamReader> {
  const stream = await openEventStream(`${url}${path}`, {
    authorization: `Bearer ${agent.api_key}`,
    'accept-encoding': 'gzip, deflate',
    ...headers,
  });
  if (stream.status === 200) await stream.waitFor((s) => s.comments.includes('connected'));
  return stream;
}

const idsOf = (s: EventStreamReader) => s.events.map((e) => e.id);

describe('Reactor event stream (SSE) #integration', function () {
  this.timeout(60_000);
  let server: { url: string; role: RunningRole };
  const open: EventStreamReader[] = [];
  const track = (s: EventStreamReader) => (open.push(s), s);

  before(async () => {
    server = await startApi();
  });
  afterEach(() => {
    for (const s of open.splice(0)) s.close();
  });
  after(() => server?.role.stop());

  it('when an agent listens, then it gets its own entries live, uncompressed, in order, and none of another agent', async () => {
    const [a, b] = [await registerAgent(), await registerAgent()];
    const stream = track(await connect(server.url, a));
    assert.equal(stream.status, 200);
    assert.match(String(stream.headers['content-type']), /^text\/event-stream/);
    assert.equal(stream.headers['cache-control'], 'no-cache');
    assert.equal(stream.headers['x-accel-buffering'], 'no');
    assert.equal(stream.headers['content-encoding'], undefined);
    assert.ok(stream.retries[0]! > 0, 'a retry: hint');

    const [first] = await publish([a.agent_id]);
    await publish([b.agent_id, b.agent_id]);
    const [second] = await publish([a.agent_id]);
    await stream.waitFor((s) => s.events.length >= 2);
    assert.deepEqual(idsOf(stream), [first, second]);
    const event = stream.events[0]!;
    assert.equal(event.event, 'reactor_event');
    const data = JSON.parse(event.data) as Record<string, unknown>;
    assert.equal(data.for, a.agent_id);
    assert.equal(data.whale_wallet, '0x1111111111111111111111111111111111111111');
    assert.equal(data.side, 'BUY');
  });

  it('when a fill is withdrawn, then the agent gets a reactor_withdrawn event', async () => {
    const a = await registerAgent();
    const stream = track(await connect(server.url, a));
    const [id] = await publish([a.agent_id], 'reactor_withdrawn');
    await stream.waitFor((s) => s.events.length >= 1);
    assert.deepEqual(
      stream.events.map((e) => [e.id, e.event]),
      [[id, 'reactor_withdrawn']],
    );
  });

  it('when the stream holds an entry that does not parse, then the tail reads past it (no busy loop on it) and delivers what follows', async () => {
    const { deps } = testContext();
    const xreads = async () => {
      const stats = await deps.redis.info('commandstats');
      return Number(/cmdstat_xread:calls=(\d+)/.exec(stats)?.[1] ?? 0);
    };
    const a = await registerAgent();
    const stream = track(await connect(server.url, a));
    const key = reactorStreamKey(deps.env.QUEUE_PREFIX);
    await deps.redis.xadd(key, '*', 'a', a.agent_id, 'e', 'reactor_event', 'd', '{not json');
    const before = await xreads();
    await new Promise((r) => setTimeout(r, 500));
    // A blocking read returns only when an entry arrives: a tail stuck on the bad entry re-reads it
    // without pause, thousands of times in half a second.
    assert.ok((await xreads()) - before < 20, 'the tail blocks again after the bad entry');
    const [after] = await publish([a.agent_id]);
    await stream.waitFor((s) => s.events.length >= 1);
    assert.deepEqual(idsOf(stream), [after]);
  });

  it('when a signal comes from a maker leg, then only a stream opened with caps=maker gets it, as in pending', async () => {
    const { deps } = testContext();
    const a = await registerAgent();
    const plain = track(await connect(server.url, a));
    const withCaps = track(await connect(server.url, a, {}, '/api/sdk/reactor/stream?caps=maker'));
    const [maker, taker] = await publishReactorEvents(deps.redis, deps.env.QUEUE_PREFIX, STREAM_MAXLEN, [
      {
        agentId: a.agent_id,
        event: 'reactor_event',
        data: { whale_wallet: '0x22', side: 'SELL', size: 5, leg: 'maker' },
      },
      {
        agentId: a.agent_id,
        event: 'reactor_event',
        data: { whale_wallet: '0x22', side: 'BUY', size: 5, leg: 'taker' },
      },
    ]);
    await withCaps.waitFor((s) => s.events.length >= 2);
    await plain.waitFor((s) => s.events.length >= 1);
    assert.deepEqual(idsOf(withCaps), [maker, taker]);
    assert.deepEqual(idsOf(plain), [taker]);
  });

  it('when nothing happens, then the stream carries heartbeat comments', async () => {
    const stream = track(await connect(server.url, await registerAgent()));
    await stream.waitFor((s) => s.comments.filter((c) => c === 'heartbeat').length >= 3);
    assert.deepEqual(stream.events, []);
  });

  it('when a client reconnects with Last-Event-ID, then it gets exactly what it missed, then live ones', async () => {
    const [a, b] = [await registerAgent(), await registerAgent()];
    const first = track(await connect(server.url, a));
    const [seen] = await publish([a.agent_id]);
    await first.waitFor((s) => s.events.length === 1);
    first.close();
    const missed = await publish([a.agent_id, b.agent_id, a.agent_id]);

    const resumed = track(await connect(server.url, a, { 'last-event-id': first.events[0]!.id! }));
    const [live] = await publish([a.agent_id]);
    await resumed.waitFor((s) => s.events.length >= 3);
    assert.equal(first.events[0]!.id, seen);
    assert.deepEqual(idsOf(resumed), [missed[0], missed[2], live]);
  });

  it('when a resume races entries appended while it connects, then each entry after Last-Event-ID arrives exactly once, in order', async () => {
    const a = await registerAgent();
    const [from] = await publish([a.agent_id]);
    const before = await publish([a.agent_id, a.agent_id, a.agent_id]);
    // Appended one by one while the resumed stream is being opened and replayed.
    const appending = (async () => {
      const ids: string[] = [];
      for (let i = 0; i < 40; i++) ids.push(...(await publish([a.agent_id])));
      return ids;
    })();
    const resumed = track(
      await connect(server.url, a, {}, `/api/sdk/reactor/stream?last_event_id=${encodeURIComponent(from!)}`),
    );
    const during = await appending;
    const expected = [...before, ...during];
    await resumed.waitFor((s) => s.events.length >= expected.length);
    assert.deepEqual(idsOf(resumed), expected);
  });

  it('when the Last-Event-ID is not a stream id, then 422 with a fix', async () => {
    const refused = await connect(server.url, await registerAgent(), { 'last-event-id': 'yesterday' });
    assert.equal(refused.status, 422);
    assert.equal(refused.refusal!.error_code, 'invalid_last_event_id');
    assert.equal(typeof refused.refusal!.fix, 'string');
  });

  it('when a key opens one stream more than REACTOR_STREAM_MAX_PER_KEY, then 429 with a fix; closing one frees its slot', async () => {
    const a = await registerAgent();
    const five = await Promise.all(Array.from({ length: 5 }, () => connect(server.url, a).then(track)));
    assert.deepEqual(
      five.map((s) => s.status),
      [200, 200, 200, 200, 200],
    );
    const sixth = await connect(server.url, a);
    assert.equal(sixth.status, 429);
    assert.equal(sixth.refusal!.error_code, 'too_many_streams');
    assert.match(String(sixth.refusal!.detail), /5 open Reactor event streams/);
    assert.equal(typeof sixth.refusal!.fix, 'string');
    assert.ok(Number(sixth.headers['retry-after']) > 0);
    // Another key is not counted against this one.
    assert.equal(track(await connect(server.url, await registerAgent())).status, 200);

    five[0]!.close();
    let again: EventStreamReader | undefined;
    for (let i = 0; i < 50 && again?.status !== 200; i++) {
      again = await connect(server.url, a);
      if (again.status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(track(again!).status, 200);
  });

  it('when two API processes serve streams, then both deliver each entry to their clients', async () => {
    const other = await startApi();
    try {
      const a = await registerAgent();
      const here = track(await connect(server.url, a));
      const there = track(await connect(other.url, a));
      const ids = await publish([a.agent_id, a.agent_id]);
      await here.waitFor((s) => s.events.length >= 2);
      await there.waitFor((s) => s.events.length >= 2);
      assert.deepEqual(idsOf(here), ids);
      assert.deepEqual(idsOf(there), ids);
    } finally {
      for (const s of open.splice(0)) s.close();
      await other.role.stop();
    }
  });

  it('when the API role stops, then its open streams end cleanly and the stop completes', async () => {
    // A shutdown timeout longer than the test's: a stream left open would hold the stop past it.
    const stopping = await startApi({ SHUTDOWN_TIMEOUT_MS: 120_000 });
    const a = await registerAgent();
    const streams = [track(await connect(stopping.url, a)), track(await connect(stopping.url, a))];
    await stopping.role.stop();
    await Promise.all(streams.map((s) => s.ended));
    const after = await fetch(`${stopping.url}/healthz/live`).then(
      () => 'answered',
      () => 'refused',
    );
    assert.equal(after, 'refused');
  });

  it('when a released agent (its human let it go) opens its stream, then it still reads its own events', async () => {
    const { agent, token } = await claimedAgent();
    await api().post(`/api/sdk/agents/${agent.agent_id}/release`).set(asUser(token)).expect(200);
    const me = await api().get('/api/sdk/agents/me').set(asAgent(agent)).expect(200);
    assert.equal(me.body.status, 'suspended');
    const stream = track(await connect(server.url, agent));
    assert.equal(stream.status, 200);
    const [id] = await publish([agent.agent_id]);
    await stream.waitFor((s) => s.events.length >= 1);
    assert.deepEqual(idsOf(stream), [id]);
  });

  it('the route is published as text/event-stream with its 429', async () => {
    const doc = (await api().get('/openapi.json').expect(200)).body;
    const op = doc.paths['/api/sdk/reactor/stream'].get;
    assert.ok(op.responses['200'].content['text/event-stream']);
    assert.ok(op.responses['429']);
    assert.ok(op.parameters.some((p: { name: string }) => p.name === 'last_event_id'));
  });
});
