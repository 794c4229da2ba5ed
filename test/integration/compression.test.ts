import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { COMPRESSION_MIN_BYTES } from '../../api/app.js';
import { api, registerAgent, type RegisteredAgent } from '../support/http.js';

/** The raw bytes of an answer (supertest would otherwise decode a compressed body for us). */
function raw(req: ReturnType<ReturnType<typeof api>['get']>) {
  return req.buffer(true).parse((res, done) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => done(null, Buffer.concat(chunks)));
  });
}

describe('response compression #integration', () => {
  let agent: RegisteredAgent;
  before(async () => {
    agent = await registerAgent();
  });
  const list = () => api().get('/api/sdk/markets?limit=50').set('Authorization', `Bearer ${agent.api_key}`);

  it('when a client accepts gzip and asks for a large JSON list, then it gets it gzipped, with Vary: Accept-Encoding, decoding to the same JSON', async () => {
    const plain = await raw(list().set('Accept-Encoding', 'identity'));
    const zipped = await raw(list().set('Accept-Encoding', 'gzip'));
    assert.equal(zipped.status, 200);
    assert.equal(zipped.headers['content-encoding'], 'gzip');
    assert.match(String(zipped.headers.vary), /Accept-Encoding/i);
    const body = zipped.body as Buffer;
    assert.ok(body.length < (plain.body as Buffer).length / 2, `${body.length} B gzipped`);
    const decoded = JSON.parse(gunzipSync(body).toString('utf8')) as { markets: { id: string }[] };
    const expected = JSON.parse((plain.body as Buffer).toString('utf8')) as { markets: { id: string }[] };
    assert.deepEqual(
      decoded.markets.map((m) => m.id),
      expected.markets.map((m) => m.id),
    );
  });

  it('when a client sends no Accept-Encoding (identity), then the list comes plain, still with Vary', async () => {
    const res = await raw(list().set('Accept-Encoding', 'identity'));
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-encoding'], undefined);
    assert.match(String(res.headers.vary), /Accept-Encoding/i);
    assert.ok(JSON.parse((res.body as Buffer).toString('utf8')).markets);
  });

  it('when the body is below the threshold, then it is sent uncompressed even to a gzip client', async () => {
    const res = await raw(api().get('/healthz/live').set('Accept-Encoding', 'gzip'));
    assert.equal(res.status, 200);
    assert.ok((res.body as Buffer).length < COMPRESSION_MIN_BYTES);
    assert.equal(res.headers['content-encoding'], undefined);
  });

  it('when a browser asks for an HTML page with br, then it gets it brotli-compressed', async () => {
    const res = await raw(api().get('/docs/').set('Accept-Encoding', 'br'));
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /text\/html/);
    assert.equal(res.headers['content-encoding'], 'br');
  });
});
