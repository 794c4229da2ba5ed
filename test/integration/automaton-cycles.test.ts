import assert from 'node:assert/strict';
import { approvedSkill } from '../support/factories.js';
import { api, registerAgent } from '../support/http.js';

async function initializedAutomaton() {
  const agent = await registerAgent();
  const auth = { Authorization: `Bearer ${agent.api_key}` };
  await api().post('/api/sdk/automaton/init').set(auth).send({ budget_usd: 100 }).expect(200);
  return auth;
}

const selection = [{ slug: 'some-skill', reason: 'best arm', score: 0.4 }];
const change = { slug: 'some-skill', env: 'SIMMER_MAX_POSITION', reason: 'too many zero signals' };
const arm = {
  slug: 'some-skill',
  enabled: true,
  timesSelected: 3,
  timesRewarded: 1,
  totalPnl: 1.5,
  consecutiveZeroSignals: 0,
  signalsFoundTotal: 4,
  tradesExecutedTotal: 2,
  ewmRoc: 0.01,
};

/** The validation body of a key the database cannot store: its code, the key's place, a fix. */
function assertKeyRefused(res: { status: number; body: Record<string, unknown> }, loc: string[]) {
  assert.equal(res.status, 422, JSON.stringify(res.body));
  assert.equal(res.body.error_code, 'body_key_invalid', JSON.stringify(res.body));
  assert.deepEqual((res.body.detail as { loc: string[] }[])[0]?.loc, loc);
  assert.match(res.body.fix as string, /Rename the key/);
  assert.ok((res.body.error as string).includes(loc.join('.')), res.body.error as string);
}

describe('automaton cycles #integration', () => {
  it('when a cycle is recorded with an empty reason and tier, then it is stored (the contract allows empty strings)', async () => {
    // Found by the contract fuzzer (seed 8887): mongoose's `required` refused '' and answered 500.
    const auth = await initializedAutomaton();
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

  describe('keys the database cannot store (issue 36: a NUL in a key answered 500)', () => {
    it('when a recorded cycle has a NUL in a key of a config change, then 422 body_key_invalid naming it, and nothing is recorded', async () => {
      const auth = await initializedAutomaton();
      const res = await api()
        .post('/api/sdk/automaton/cycles')
        .set(auth)
        .send({
          cycle_num: 1,
          tier: 'explore',
          epsilon: 0.2,
          selected_skills: selection,
          config_changes: [{ ...change, 'a\u0000b': 1 }],
        });
      assertKeyRefused(res, ['body', 'config_changes', '0', 'a\u0000b']);
      const listed = await api().get('/api/sdk/automaton/cycles').set(auth).expect(200);
      assert.equal(listed.body.total, 0, JSON.stringify(listed.body));
    });

    it('when a cycle update has a NUL in a key of a bandit arm, then 422 body_key_invalid naming it, and the arms stay as they were', async () => {
      const auth = await initializedAutomaton();
      const update = { active_skills: ['some-skill'], cycle_number: 1, bandit_arms: [arm] };
      await api().post('/api/sdk/automaton/cycle').set(auth).send(update).expect(200);
      const res = await api()
        .post('/api/sdk/automaton/cycle')
        .set(auth)
        .send({ ...update, cycle_number: 2, bandit_arms: [{ ...arm, 'a\u0000b': 1 }] });
      assertKeyRefused(res, ['body', 'bandit_arms', '0', 'a\u0000b']);
      const state = await api().get('/api/sdk/automaton/bandit-state').set(auth).expect(200);
      assert.equal(state.body.cycle_count, 1);
      assert.deepEqual(state.body.arms, [arm]);
    });

    for (const env of ['A\u0000B', '$where', '.hidden']) {
      it(`when a cycle update's tuning names the tunable ${JSON.stringify(env)} (a key of the skill's config), then 422 on env and the config is unchanged`, async () => {
        const auth = await initializedAutomaton();
        const slug = await approvedSkill('tuned');
        const res = await api()
          .post('/api/sdk/automaton/cycle')
          .set(auth)
          .send({
            active_skills: [slug],
            cycle_number: 1,
            config_changes: [{ ...change, slug, env, old: 1, new: 2 }],
          });
        assert.equal(res.status, 422, JSON.stringify(res.body));
        assert.deepEqual(res.body.detail[0].loc, ['body', 'config_changes', '0', 'env']);
        const skills = await api().get('/api/sdk/automaton/skills').set(auth).expect(200);
        const skill = skills.body.skills.find((s: { id: string }) => s.id === slug);
        assert.deepEqual(skill.config, {});
      });
    }

    it("when a skill's config has a $-leading key, then 422 body_key_invalid and the config is unchanged", async () => {
      const auth = await initializedAutomaton();
      const slug = await approvedSkill('configured');
      const res = await api()
        .post(`/api/sdk/automaton/skills/${slug}/config`)
        .set(auth)
        .send({ SIMMER_MAX_POSITION: 5, $where: 1 });
      assertKeyRefused(res, ['body', '$where']);
      const skills = await api().get('/api/sdk/automaton/skills').set(auth).expect(200);
      assert.deepEqual(skills.body.skills.find((s: { id: string }) => s.id === slug).config, {});
    });

    it('when cycles carry the keys the plugin sends (and dotted ones in its extras), then they are stored and served as sent', async () => {
      const auth = await initializedAutomaton();
      const slug = await approvedSkill('ordinary');
      const hint = { skill: slug, issue: 'zero signals', 'detail.count': 3 };
      await api()
        .post('/api/sdk/automaton/cycles')
        .set(auth)
        .send({
          cycle_num: 7,
          tier: 'explore',
          epsilon: 0.2,
          selected_skills: [{ ...selection[0], slug }],
          tuning_hints: [hint],
          config_changes: [{ ...change, slug, 'old.value': 4 }],
        })
        .expect(200);
      const tuned = { ...arm, slug, 'ewm.window': 5 };
      await api()
        .post('/api/sdk/automaton/cycle')
        .set(auth)
        .send({
          active_skills: [slug],
          cycle_number: 7,
          config_changes: [{ ...change, slug, old: 4, new: 6 }],
          bandit_arms: [tuned],
        })
        .expect(200);
      const cycles = await api().get('/api/sdk/automaton/cycles').set(auth).expect(200);
      assert.deepEqual(cycles.body.cycles[0].tuning_hints, [hint]);
      assert.deepEqual(cycles.body.cycles[0].config_changes, [{ ...change, slug, 'old.value': 4 }]);
      const state = await api().get('/api/sdk/automaton/bandit-state').set(auth).expect(200);
      assert.deepEqual(state.body.arms, [tuned]);
      const skills = await api().get('/api/sdk/automaton/skills').set(auth).expect(200);
      const skill = skills.body.skills.find((s: { id: string }) => s.id === slug);
      assert.deepEqual(skill.config, { SIMMER_MAX_POSITION: 6 });
    });
  });
});
