import assert from 'node:assert/strict';
import { api } from '../support/http.js';

describe('observability #integration', () => {
  it('when /metrics is scraped, then it has HTTP latency histograms by route and queue depths', async () => {
    await api().get('/api/sdk/health');
    const res = await api().get('/metrics');
    assert.equal(res.status, 200);
    assert.match(res.headers['content-type'] ?? '', /text\/plain/);
    assert.match(res.text, /http_request_duration_seconds_bucket\{[^}]*route="\/api\/sdk\/health"[^}]*\}/);
    assert.match(res.text, /queue_jobs\{queue="system",state="waiting"\} \d+/);
    assert.match(res.text, /process_cpu_user_seconds_total/);
  });
});
