import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { COMPRESSION_MIN_BYTES } from '../../api/app.js';
import { testContext } from '../support/context.js';
import { registerAgent, type RegisteredAgent } from '../support/http.js';

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** The bytes on the wire (supertest would decode a compressed body before we see it). */
async function rawGet(path: string, headers: Record<string, string>): Promise<Raw> {
  const server = testContext().app.listen(0, '127.0.0.1');
  await new Promise<void>((r) => server.once('listening', () => r()));
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise<Raw>((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
          );
          res.on('error', reject);
        })
        .on('error', reject);
    });
  } finally {
    await new Promise((r) => server.close(r));
  }
}

describe('response compression #integration', () => {
  let agent: RegisteredAgent;
  before(async () => {
    agent = await registerAgent();
  });
  const list = (encoding: string) =>
    rawGet('/api/sdk/markets?limit=50', {
      authorization: `Bearer ${agent.api_key}`,
      'accept-encoding': encoding,
    });

  it('when a client accepts gzip and asks for a large JSON list, then it gets it gzipped, with Vary: Accept-Encoding, decoding to the same JSON', async () => {
    const plain = await list('identity');
    const zipped = await list('gzip');
    assert.equal(zipped.status, 200);
    assert.equal(zipped.headers['content-encoding'], 'gzip');
    assert.match(String(zipped.headers.vary), /Accept-Encoding/i);
    assert.ok(zipped.body.length < plain.body.length / 2, `${zipped.body.length} of ${plain.body.length} B`);
    const decoded = JSON.parse(gunzipSync(zipped.body).toString('utf8')) as { markets: { id: string }[] };
    const expected = JSON.parse(plain.body.toString('utf8')) as { markets: { id: string }[] };
    assert.deepEqual(
      decoded.markets.map((m) => m.id),
      expected.markets.map((m) => m.id),
    );
  });

  it('when a client sends no Accept-Encoding, then the list comes plain, still with Vary', async () => {
    const res = await rawGet('/api/sdk/markets?limit=50', { authorization: `Bearer ${agent.api_key}` });
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-encoding'], undefined);
    assert.match(String(res.headers.vary), /Accept-Encoding/i);
    assert.ok(JSON.parse(res.body.toString('utf8')).markets);
  });

  it('when the body is below the threshold, then it is sent uncompressed even to a gzip client', async () => {
    const res = await rawGet('/healthz/live', { 'accept-encoding': 'gzip' });
    assert.equal(res.status, 200);
    assert.ok(res.body.length < COMPRESSION_MIN_BYTES);
    assert.equal(res.headers['content-encoding'], undefined);
  });

  it('when a browser asks for an HTML page with br, then it gets it brotli-compressed', async () => {
    const res = await rawGet('/docs/', { 'accept-encoding': 'br' });
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /text\/html/);
    assert.equal(res.headers['content-encoding'], 'br');
  });
});
