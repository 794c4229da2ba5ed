// Many Server-Sent Events clients held open at once, as the reactor MCP client holds its stream:
// one socket each (no pooling: a stream never ends), the `event:` / `data:` / `id:` fields parsed
// per the EventSource rules the bench needs (one data line per event, comments ignored), and each
// event handed over with the moment it arrived.
import http from 'node:http';

export interface SseEvent {
  event: string;
  data: string;
  id?: string;
  /** performance.timeOrigin + performance.now() when its blank line arrived (ms since the epoch). */
  receivedAt: number;
}

export interface SseClients {
  /** Streams answered 200 with text/event-stream and still open. */
  open(): number;
  /** Streams that failed to open or closed early, with the first reason. */
  failures(): { count: number; first?: string };
  close(): void;
}

const now = () => performance.timeOrigin + performance.now();

/**
 * Opens one stream per key to `baseUrl + path` (Bearer key), `concurrency` connection attempts at
 * a time, and resolves once every stream answered (or failed). `onEvent` gets each event with the
 * index of its key.
 */
export async function openSseClients(
  baseUrl: string,
  path: string,
  keys: string[],
  onEvent: (client: number, e: SseEvent) => void,
  concurrency = 50,
): Promise<SseClients> {
  const { hostname, port } = new URL(baseUrl);
  const requests: http.ClientRequest[] = [];
  let open = 0;
  let failed = 0;
  let firstFailure: string | undefined;
  const fail = (why: string) => {
    failed++;
    firstFailure ??= why;
  };
  const connect = (client: number) =>
    new Promise<void>((resolve) => {
      const req = http.get(
        {
          hostname,
          port,
          path,
          agent: false,
          headers: { accept: 'text/event-stream', authorization: `Bearer ${keys[client]}` },
        },
        (res) => {
          if (
            res.statusCode !== 200 ||
            !String(res.headers['content-type']).startsWith('text/event-stream')
          ) {
            let body = '';
            res.on('data', (c) => (body += c));
            res.on('end', () => {
              fail(`${res.statusCode} ${body.slice(0, 200)}`);
              resolve();
            });
            return;
          }
          open++;
          resolve();
          res.setEncoding('utf8');
          let buffer = '';
          let event = 'message';
          let data: string[] = [];
          let id: string | undefined;
          res.on('data', (chunk: string) => {
            buffer += chunk;
            let nl: number;
            while ((nl = buffer.indexOf('\n')) >= 0) {
              const line = buffer.slice(0, nl).replace(/\r$/, '');
              buffer = buffer.slice(nl + 1);
              if (line === '') {
                if (data.length) onEvent(client, { event, data: data.join('\n'), id, receivedAt: now() });
                event = 'message';
                data = [];
                id = undefined;
              } else if (!line.startsWith(':')) {
                const colon = line.indexOf(':');
                const field = colon < 0 ? line : line.slice(0, colon);
                const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
                if (field === 'event') event = value;
                else if (field === 'data') data.push(value);
                else if (field === 'id') id = value;
              }
            }
          });
          res.on('close', () => {
            open--;
            if (!closing) fail(`stream ${client} closed by the service`);
          });
        },
      );
      req.on('error', (err) => {
        if (!closing) fail(err.message);
        resolve();
      });
      requests.push(req);
    });
  let closing = false;
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, keys.length) }, async () => {
      while (next < keys.length) await connect(next++);
    }),
  );
  return {
    open: () => open,
    failures: () => ({ count: failed, first: firstFailure }),
    close() {
      closing = true;
      for (const r of requests) r.destroy();
    },
  };
}
