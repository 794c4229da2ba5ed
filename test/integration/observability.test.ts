import assert from 'node:assert/strict';
import { healthRole } from '../../shared/composition/health-server.js';
import { freePort } from '../support/capture.js';
import { testContext } from '../support/context.js';
import { api, randomIp, registerAgent } from '../support/http.js';

const asOperator = () => ({ Authorization: `Bearer ${testContext().operatorToken}` });

describe('observability #integration', () => {
  it('when /metrics is scraped, then it has HTTP latency histograms by route and queue depths', async () => {
    await api().get('/api/sdk/health');
    const res = await api().get('/metrics').set(asOperator());
    assert.equal(res.status, 200);
    assert.match(res.headers['content-type'] ?? '', /text\/plain/);
    assert.match(res.text, /http_request_duration_seconds_bucket\{[^}]*route="\/api\/sdk\/health"[^}]*\}/);
    assert.match(res.text, /queue_jobs\{queue="system",state="waiting"\} \d+/);
    assert.match(res.text, /process_cpu_user_seconds_total/);
  });

  it('when /metrics is scraped without the operator token (none, or an agent key), then 401 JSON and no metrics', async () => {
    const agent = await registerAgent();
    for (const auth of [undefined, `Bearer ${agent.api_key}`]) {
      // From an address of its own: a wrong token counts towards the operator lockout.
      const req = api().get('/metrics').set('X-Forwarded-For', randomIp());
      const res = await (auth ? req.set('Authorization', auth) : req);
      assert.equal(res.status, 401, `${auth}: ${res.text.slice(0, 200)}`);
      assert.match(res.headers['content-type'] ?? '', /application\/json/);
      assert.equal(typeof res.body.fix, 'string');
      assert.ok(!res.text.includes('process_cpu_user_seconds_total'));
    }
  });

  it('when the workers’ or jobs’ health server is asked for /metrics, then only the operator token gets them', async () => {
    const { deps } = testContext();
    const port = await freePort();
    const server = await healthRole.start({ ...deps, env: { ...deps.env, PORT: port, HOST: '127.0.0.1' } });
    try {
      const base = `http://127.0.0.1:${port}`;
      const anonymous = await fetch(`${base}/metrics`);
      assert.equal(anonymous.status, 401);
      assert.match(anonymous.headers.get('content-type') ?? '', /application\/json/);
      assert.equal(typeof ((await anonymous.json()) as { fix: unknown }).fix, 'string');
      const operator = await fetch(`${base}/metrics`, { headers: asOperator() });
      assert.equal(operator.status, 200);
      assert.match(await operator.text(), /process_cpu_user_seconds_total/);
      assert.equal((await fetch(`${base}/healthz/live`)).status, 200, 'liveness stays public');
      const hugeHeaders = await fetch(`${base}/healthz/live`, {
        headers: { 'x-big': 'a'.repeat(64 * 1024) },
      });
      assert.equal(hugeHeaders.status, 431);
      assert.equal(typeof ((await hugeHeaders.json()) as { fix: unknown }).fix, 'string');
    } finally {
      await server.stop();
    }
  });
});
