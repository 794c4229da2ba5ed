import assert from 'node:assert/strict';
import { audited } from '../../shared/domains/operator/operator-actions.js';
import { ACTION_STARTED } from '../../shared/domains/operator/record-action.js';
import { testContext } from '../support/context.js';
import { makeMarket } from '../support/factories.js';
import { api, randomIp, registerAgent } from '../support/http.js';

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
    const from = randomIp();
    for (const auth of ['Bearer wrong-token-wrong-token', `Bearer ${agent.api_key}`]) {
      // From an address of its own: wrong tokens count towards the operator lockout.
      const res = await api().get('/admin/queues').set('X-Forwarded-For', from).set('Authorization', auth);
      assert.equal(res.status, 401, auth);
    }
    const basicWrong = await api().get('/admin/queues').set('X-Forwarded-For', from).auth('admin', 'nope');
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

  it('when an operator resolves a market and sets a tier through /api/admin, then both are in the audit trail as api with the result, and the console lists them', async () => {
    const { deps, operatorToken } = testContext();
    const market = await makeMarket();
    const userId = `audited-${randomIp()}`;
    const bearer = `Bearer ${operatorToken}`;
    const resolved = await api()
      .post(`/api/admin/markets/${market._id}/resolve`)
      .set('Authorization', bearer)
      .send({ outcome: true });
    assert.equal(resolved.status, 200, resolved.text);
    const tier = await api()
      .put(`/api/admin/users/${userId}/tier`)
      .set('Authorization', bearer)
      .send({ tier: 'pro' });
    assert.equal(tier.status, 200, tier.text);
    const again = await api()
      .post(`/api/admin/markets/${market._id}/resolve`)
      .set('Authorization', bearer)
      .send({ outcome: false });
    assert.equal(again.status, 409);

    const actions = await deps.models.OperatorAction.find({ target: { $in: [market._id, userId] } }).lean();
    assert.ok(actions.every((a) => a.actor === 'api' && a.at instanceof Date));
    const resolves = actions.filter((a) => a.action === 'market.resolve' && a.target === market._id);
    assert.deepEqual(resolves.map((a) => a.detail?.replace(/: .*/, '')).sort(), ['refused', 'yes; settled']);
    assert.match(
      resolves.find((a) => a.detail?.startsWith('yes'))!.detail!,
      /^yes; settled: 0 positions paid 0 \$SIM$/,
    );
    assert.deepEqual(
      actions.filter((a) => a.action === 'user.tier').map((a) => [a.target, a.detail]),
      [[userId, 'pro']],
    );

    const home = await api().get('/admin/').set('Authorization', bearer);
    assert.match(home.text, new RegExp(userId));
    assert.match(home.text, new RegExp(market._id));
  });

  it('when an operator action runs, then its audit entry is written before it acts and the result after; an action the trail cannot record is not taken', async () => {
    const { deps } = testContext();
    const target = `write-ahead-${randomIp()}`;
    const entryOf = () => deps.models.OperatorAction.findOne({ target }).lean();
    const seenWhileRunning = await audited(
      deps,
      { actor: 'api', action: 'test.write-ahead', target },
      entryOf,
      () => 'done',
    );
    assert.equal(seenWhileRunning?.detail, ACTION_STARTED);
    assert.equal((await entryOf())?.detail, 'done');

    // The trail refuses the entry (a document it cannot store): the action is never run.
    let ran = false;
    await assert.rejects(
      audited(
        deps,
        { actor: 'api', action: 'test.write-ahead', target: undefined as unknown as string },
        async () => {
          ran = true;
        },
        () => 'done',
      ),
    );
    assert.equal(ran, false);
  });
});
