import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import { apiRole } from '../../api/server.js';
import { freePort } from '../support/capture.js';
import { testContext } from '../support/context.js';

/** Sends raw bytes and reads the whole answer until the server closes the connection. */
async function rawExchange(
  port: number,
  bytes: string,
): Promise<{ status: number; headers: string; body: string }> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  socket.write(bytes);
  await once(socket, 'close');
  const text = Buffer.concat(chunks).toString('utf8');
  const [head = '', body = ''] = text.split('\r\n\r\n');
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), headers: head, body };
}

describe('the API server’s own errors #integration', () => {
  let port: number;
  let stop: () => Promise<void>;

  before(async () => {
    const { deps } = testContext();
    port = await freePort();
    const started = await apiRole.start({ ...deps, env: { ...deps.env, PORT: port, HOST: '127.0.0.1' } });
    stop = started.stop;
  });
  after(() => stop?.());

  it('when the request headers are too large, then 431 with a JSON body carrying a fix', async () => {
    const res = await rawExchange(
      port,
      `GET /api/sdk/health HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`,
    );
    assert.equal(res.status, 431, res.headers);
    assert.match(res.headers, /content-type: application\/json/i);
    const body = JSON.parse(res.body) as Record<string, string>;
    assert.match(body.detail!, /header/i);
    assert.equal(body.error, body.detail);
    assert.equal(typeof body.fix, 'string');
  });

  it('when the request line is not HTTP, then 400 with a JSON body carrying a fix', async () => {
    const res = await rawExchange(port, 'HELLO THERE\r\n\r\n');
    assert.equal(res.status, 400, res.headers);
    assert.match(res.headers, /content-type: application\/json/i);
    const body = JSON.parse(res.body) as Record<string, string>;
    assert.equal(typeof body.fix, 'string');
  });

  it('when a request is well formed, then the server still answers it', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/api/sdk/health`);
    assert.equal(res.status, 200);
  });
});
