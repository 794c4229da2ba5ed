import assert from 'node:assert/strict';
import { testContext } from '../support/context.js';
import { api, registerAgent } from '../support/http.js';

describe('operator access and queue dashboard #integration', () => {
  it('when /admin/queues is opened without the operator token, then 401 JSON with a Basic challenge', async () => {
    const res = await api().get('/admin/queues');
    assert.equal(res.status, 401);
    assert.match(res.headers['www-authenticate'] ?? '', /^Basic realm="operator"/);
    assert.equal(res.body.detail, 'Operator authentication required');
    assert.equal(typeof res.body.fix, 'string');
  });

  it('when a wrong token or an agent key is presented, then 401', async () => {
    const agent = await registerAgent();
    for (const auth of ['Bearer wrong-token-wrong-token', `Bearer ${agent.api_key}`]) {
      const res = await api().get('/admin/queues').set('Authorization', auth);
      assert.equal(res.status, 401, auth);
    }
    const basicWrong = await api().get('/admin/queues').auth('admin', 'nope');
    assert.equal(basicWrong.status, 401);
  });

  it('when a script sends the Bearer token, then the dashboard page is served', async () => {
    const res = await api()
      .get('/admin/queues')
      .set('Authorization', `Bearer ${testContext().operatorToken}`);
    assert.equal(res.status, 200);
    assert.match(res.headers['content-type'] ?? '', /text\/html/);
    assert.match(res.text, /bull-board|<div id="root"/i);
  });

  it('when a browser signs in with Basic auth (any user, token as password), then the dashboard API lists every queue with counts', async () => {
    const res = await api()
      .get('/admin/queues/api/queues?activeQueue=system&status=failed&page=1')
      .auth('ops', testContext().operatorToken);
    assert.equal(res.status, 200);
    const names = (res.body.queues as { name: string; counts: Record<string, number> }[]).map((q) => q.name);
    assert.deepEqual(names.sort(), Object.keys(testContext().deps.queues.queues).sort());
    assert.equal(typeof res.body.queues[0].counts.failed, 'number');
  });
});
