import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ENDPOINTS } from '../../api/endpoints/index.js';
import type { EndpointSpec } from '../../api/endpoints/endpoint.js';
import { releasedAgentMayCall } from '../../api/http/released-agent.js';
import { testContext } from '../support/context.js';
import { makeMarket, trade } from '../support/factories.js';
import { api, type RegisteredAgent } from '../support/http.js';
import { asAgent, claimedAgent } from '../support/polymarket-traders.js';
import { asUser } from '../support/users.js';

/** An agent its human claimed, traded with, then released. */
async function releasedAgent() {
  const { agent, token } = await claimedAgent();
  const market = await makeMarket();
  const bought = await trade(agent, { market_id: market._id, side: 'yes', amount: 5 });
  assert.equal(bought.body.success, true, JSON.stringify(bought.body));
  await api().post(`/api/sdk/agents/${agent.agent_id}/release`).set(asUser(token)).expect(200);
  return { agent, token, market };
}

/** A concrete path for a template: ids are well-formed but belong to nobody. */
const concretePath = (template: string) =>
  template.replace(/\{([^}]+)\}/g, (_m, name: string) =>
    name === 'wallet_address' || name === 'address' ? `0x${'ab'.repeat(20)}` : randomUUID(),
  );

const refusedAsReleased = (res: { status: number; body: { error_code?: string } }) =>
  res.status === 403 && res.body.error_code === 'agent_suspended';

describe('a released agent’s key #integration', () => {
  it('when a released agent renames itself, then 403 agent_suspended and the name stays', async () => {
    const { agent } = await releasedAgent();
    const res = await api()
      .patch('/api/sdk/agents/me/settings')
      .set(asAgent(agent))
      .send({ name: 'renamed' });
    assert.equal(res.status, 403, JSON.stringify(res.body));
    assert.equal(res.body.error_code, 'agent_suspended');
    assert.match(res.body.fix, /reactivate/);
    const stored = await testContext().deps.models.Agent.findById(agent.agent_id).lean();
    assert.notEqual(stored!.name, 'renamed');
  });

  for (const path of ['/api/sdk/settings', '/api/sdk/user/settings']) {
    it(`when a released agent reads its former owner’s settings (GET ${path}), then 403 agent_suspended`, async () => {
      const { agent } = await releasedAgent();
      const res = await api().get(path).set(asAgent(agent));
      assert.equal(res.status, 403, JSON.stringify(res.body));
      assert.equal(res.body.error_code, 'agent_suspended');
      assert.equal(res.body.max_trades_per_day, undefined);
    });
  }

  it('when a released agent reads its own data, then it is answered (agents/me, trades, positions, portfolio, briefing, cooldowns)', async () => {
    const { agent } = await releasedAgent();
    for (const path of [
      '/api/sdk/agents/me',
      '/api/sdk/trades',
      '/api/sdk/positions',
      '/api/sdk/portfolio',
      '/api/sdk/briefing',
      `/api/sdk/agents/${agent.agent_id}/cooldowns`,
    ]) {
      const res = await api().get(path).set(asAgent(agent));
      assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
    }
    const me = await api().get('/api/sdk/agents/me').set(asAgent(agent)).expect(200);
    assert.equal(me.body.status, 'suspended');
  });

  it('when a released agent trades, then the refusal is the business answer (200, success false)', async () => {
    const { agent, market } = await releasedAgent();
    const res = await trade(agent, { market_id: market._id, side: 'yes', amount: 1 });
    assert.equal(res.status, 200);
    assert.equal(res.body.success, false);
    assert.equal(res.body.error_code, 'agent_suspended');
  });

  it('when its human reactivates it, then the key may change its own settings again', async () => {
    const { agent, token } = await releasedAgent();
    await api().post(`/api/sdk/agents/${agent.agent_id}/reactivate`).set(asUser(token)).expect(200);
    await api().patch('/api/sdk/agents/me/settings').set(asAgent(agent)).send({ name: 'back' }).expect(200);
    await api().get('/api/sdk/settings').set(asAgent(agent)).expect(200);
  });

  describe('every route that takes an agent key (generated from the endpoint table)', () => {
    let agent: RegisteredAgent;
    before(async () => {
      ({ agent } = await releasedAgent());
    });

    const agentRoutes = (Object.entries(ENDPOINTS) as [string, EndpointSpec][]).filter(([, spec]) =>
      ['agent', 'agent-optional', 'agent-or-user'].includes(spec.auth),
    );
    for (const [name, spec] of agentRoutes) {
      const refused = !releasedAgentMayCall(spec);
      it(`${spec.method.toUpperCase()} ${spec.path} (${name}): ${refused ? 'refused with 403 agent_suspended' : 'not refused for being released'}`, async () => {
        const res = await api()[spec.method](concretePath(spec.path)).set(asAgent(agent)).send({});
        assert.equal(
          refusedAsReleased(res),
          refused,
          `${res.status} ${JSON.stringify(res.body).slice(0, 300)}`,
        );
      });
    }

    it('the routes a released key may still call are reads or answer for themselves', () => {
      for (const [name, spec] of agentRoutes) {
        if (!releasedAgentMayCall(spec)) continue;
        assert.ok(
          (spec.method === 'get' && spec.auth !== 'agent-or-user') || spec.releasedAgent === 'answers-itself',
          name,
        );
      }
    });
  });
});
