import http, { type IncomingMessage } from 'node:http';
import type { Test } from 'supertest';

/**
 * A superagent/supertest parser for routes that answer an event stream (`produces:
 * 'text/event-stream'`), which never ends by itself: the stream's first block is read as the
 * response text, then the connection is dropped. Any other answer (a JSON refusal) is read whole,
 * as supertest would, into `text` and `body`.
 */
export function eventStreamPreamble(
  res: IncomingMessage,
  done: (err: Error | null, body?: unknown) => void,
): void {
  const streaming = String(res.headers['content-type'] ?? '').startsWith('text/event-stream');
  let text = '';
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    (res as IncomingMessage & { text: string }).text = text;
    if (streaming) {
      res.destroy();
      return done(null, text);
    }
    try {
      done(null, /json/.test(String(res.headers['content-type'])) ? JSON.parse(text) : text);
    } catch (err) {
      done(err as Error);
    }
  };
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => {
    text += chunk;
    if (streaming && text.includes('\n\n')) finish();
  });
  res.on('end', finish);
  res.on('close', finish);
}

export interface ServerSentEvent {
  id?: string;
  event: string;
  data: string;
}

/** An open event stream read as the SSE spec reads it: events, and the comment lines between them. */
export interface EventStreamReader {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body of a refusal (not an event stream), parsed. */
  refusal?: Record<string, unknown>;
  events: ServerSentEvent[];
  comments: string[];
  /** Every `retry:` value. */
  retries: number[];
  /** Resolves when the response ends cleanly (`'end'`), rejects when it is cut off. */
  ended: Promise<void>;
  /** Resolves once `done` holds for what was received, rejects past `ms`. */
  waitFor(done: (r: EventStreamReader) => boolean, ms?: number): Promise<void>;
  close(): void;
}

/** Opens `url` as an event stream (GET) over a fresh connection, a real HTTP client. */
export function openEventStream(url: string, headers: Record<string, string>): Promise<EventStreamReader> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers, agent: false }, (res) => {
      const waiters = new Set<() => void>();
      const reader: EventStreamReader = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        events: [],
        comments: [],
        retries: [],
        ended: new Promise((resolveEnd, rejectEnd) => {
          res.on('end', () => resolveEnd());
          res.on('aborted', () => rejectEnd(new Error('the stream was cut off')));
          res.on('error', rejectEnd);
        }),
        waitFor(done, ms = 10_000) {
          return new Promise((ok, fail) => {
            const check = () => {
              if (!done(reader)) return;
              clearTimeout(timer);
              waiters.delete(check);
              ok();
            };
            const timer = setTimeout(() => {
              waiters.delete(check);
              fail(new Error(`not received in ${ms} ms: ${JSON.stringify(reader.events)}`));
            }, ms);
            waiters.add(check);
            check();
          });
        },
        close: () => req.destroy(),
      };
      reader.ended.catch(() => undefined);
      res.setEncoding('utf8');
      if (!String(res.headers['content-type']).startsWith('text/event-stream')) {
        let text = '';
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          reader.refusal = JSON.parse(text) as Record<string, unknown>;
          resolve(reader);
        });
        return;
      }
      let buffer = '';
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const event: ServerSentEvent = { event: 'message', data: '' };
          let hasData = false;
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) reader.comments.push(line.slice(1).trim());
            else if (line.startsWith('retry: ')) reader.retries.push(Number(line.slice(7)));
            else if (line.startsWith('id: ')) event.id = line.slice(4);
            else if (line.startsWith('event: ')) event.event = line.slice(7);
            else if (line.startsWith('data: ')) {
              event.data += (hasData ? '\n' : '') + line.slice(6);
              hasData = true;
            }
          }
          if (hasData) reader.events.push(event);
        }
        for (const check of [...waiters]) check();
      });
      resolve(reader);
    });
    req.on('error', reject);
  });
}

/**
 * A supertest request for a route of the endpoint table, read with eventStreamPreamble when the
 * route answers an event stream (tests that call every route would otherwise wait for its end).
 */
export function readingEventStreams(req: Test, spec: { produces?: string }): Test {
  if (spec.produces !== 'text/event-stream') return req;
  return req.buffer(true).parse(eventStreamPreamble as unknown as Parameters<Test['parse']>[0]);
}
