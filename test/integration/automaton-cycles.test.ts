import assert from 'node:assert/strict';
import { api, registerAgent } from '../support/http.js';

describe('automaton cycles #integration', () => {
  it('when a cycle is recorded with an empty reason and tier, then it is stored (the contract allows empty strings)', async () => {
    // Found by the contract fuzzer (seed 8887): mongoose's `required` refused '' and answered 500.
    const agent = await registerAgent();
    const auth = { Authorization: `Bearer ${agent.api_key}` };
    await api().post('/api/sdk/automaton/init').set(auth).send({ budget_usd: 100 }).expect(200);
    const res = await api()
      .post('/api/sdk/automaton/cycles')
      .set(auth)
      .send({
        cycle_num: 490592310771,
        epsilon: 0.75,
        tier: '',
        selected_skills: [{ slug: 'some-skill', reason: '', score: 3e-104 }],
      });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.cycle_num, 490592310771);
    const listed = await api().get('/api/sdk/automaton/cycles').set(auth).expect(200);
    assert.equal(JSON.stringify(listed.body).includes('some-skill'), true, JSON.stringify(listed.body));
  });
});
