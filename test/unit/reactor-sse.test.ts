import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Response } from 'express';
import { SseResponse } from '../../api/http/reactor-sse.js';
import type { ReactorStreamEntry } from '../../shared/domains/reactor/reactor-event-stream.js';
import { openEventStream } from '../support/event-stream.js';

const entry = (id: string): ReactorStreamEntry => ({
  id,
  agentId: 'agent',
  event: 'reactor_event',
  data: { whale_wallet: '0xabc', side: 'BUY', size: 1, n: id },
});

/**
 * A real HTTP response driven as serveReactorStream drives it: live entries the hub hands over
 * during a resume's replay, then the replay. Their order in time is set by the test here, which
 * the integration test (reactor-stream.test.ts) can only hope to hit.
 */
async function streamed(
  lastEventId: string | undefined,
  drive: (s: SseResponse) => void,
  /** The last entry the test hands over: everything is written once it is. */
  last: string,
): Promise<string[]> {
  const server = http.createServer((_req, res) => {
    const stream = new SseResponse(res as unknown as Response, lastEventId, true);
    stream.start();
    drive(stream);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const { port } = server.address() as AddressInfo;
    const reader = await openEventStream(`http://127.0.0.1:${port}/`, {});
    await reader.waitFor((r) => r.events.at(-1)?.id === last, 5000).catch(() => undefined);
    reader.close();
    return reader.events.map((e) => e.id!);
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
}

describe('Reactor SSE response: replay and live entries meet #unit', () => {
  it('when entries arrive live after the replay read the stream, then they follow the replay, in stream order', async () => {
    const ids = await streamed(
      '1-0',
      (s) => {
        // Held: the hub hands these over while the replay is still being read.
        s.deliver(entry('3-0'));
        s.deliver(entry('4-0'));
        // The replay read the stream before 3-0 was appended.
        s.goLive([entry('2-0')]);
        s.deliver(entry('5-0'));
      },
      '5-0',
    );
    assert.deepEqual(ids, ['2-0', '3-0', '4-0', '5-0']);
  });

  it('when an entry is both replayed and handed over live, then it is written once', async () => {
    const ids = await streamed(
      '1-0',
      (s) => {
        s.deliver(entry('3-0'));
        s.deliver(entry('4-0'));
        // The replay read the stream up to 3-0, which the hub handed over too.
        s.goLive([entry('2-0'), entry('3-0')]);
        s.deliver(entry('5-0'));
      },
      '5-0',
    );
    assert.deepEqual(ids, ['2-0', '3-0', '4-0', '5-0']);
  });

  it('when another process already sent an entry (at or before Last-Event-ID), then it is not sent again', async () => {
    const ids = await streamed(
      '7-2',
      (s) => {
        s.deliver(entry('7-1'));
        s.deliver(entry('7-2'));
        s.deliver(entry('7-3'));
        s.goLive([]);
        s.deliver(entry('10-0'));
      },
      '10-0',
    );
    assert.deepEqual(ids, ['7-3', '10-0']);
  });
});
