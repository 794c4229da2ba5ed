import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { MAX_PENDING_PER_AGENT, noteSkillUsed } from '../../shared/domains/skills/skills.js';
import { testContext } from '../support/context.js';
import { makeMarket, trade } from '../support/factories.js';
import { api, registerAgent, type RegisteredAgent } from '../support/http.js';

const asAgent = (a: RegisteredAgent) => ({ Authorization: `Bearer ${a.api_key}` });
const asOperator = () => ({ Authorization: `Bearer ${testContext().operatorToken}` });
const slugOf = () => `skill-${randomUUID().slice(0, 8)}`;
const submission = (slug: string, extra: Record<string, unknown> = {}) => ({
  slug,
  name: 'Momentum scalper',
  description: 'Buys what moved most in the last hour.',
  clawhub_url: `https://clawhub.ai/skills/${slug}`,
  category: 'momentum',
  tags: ['fast'],
  best_when: 'Markets move on news',
  ...extra,
});
const submit = (a: RegisteredAgent, body: object) => api().post('/api/sdk/skills').set(asAgent(a)).send(body);
const review = (slug: string, body: object) =>
  api()
    .put(`/api/admin/skills/${slug}/review`)
    .set(asOperator())
    .send({ revision: 1, ...body });
const listed = async (query = '') =>
  ((await api().get(`/api/sdk/skills${query}`).expect(200)).body.skills as { id: string }[]).map((s) => s.id);

describe('community skills #integration', () => {
  it('when an agent submits a skill, then it is pending, listed only after an operator approves it', async () => {
    const agent = await registerAgent();
    const slug = slugOf();
    const res = await submit(agent, submission(slug));
    assert.equal(res.status, 200);
    assert.equal(res.body.skill.status, 'pending');
    assert.equal(res.body.skill.id, slug);
    assert.ok(!(await listed()).includes(slug), 'pending skills are not listed');
    const mine = await api().get('/api/sdk/skills/mine').set(asAgent(agent)).expect(200);
    assert.deepEqual(
      mine.body.skills.map((s: { id: string; status: string }) => [s.id, s.status]),
      [[slug, 'pending']],
    );
    const queue = await api().get('/api/admin/skills').set(asOperator()).expect(200);
    assert.ok(queue.body.skills.some((s: { id: string }) => s.id === slug));

    await review(slug, { status: 'approved' }).expect(200);
    const all = await api()
      .get('/api/sdk/skills')
      .set('Authorization', 'Bearer sk_live_whatever')
      .expect(200);
    const item = all.body.skills.find((s: { id: string }) => s.id === slug);
    assert.deepEqual(
      { ...item, created_at: undefined },
      {
        id: slug,
        name: 'Momentum scalper',
        description: 'Buys what moved most in the last hour.',
        category: 'momentum',
        tags: ['fast'],
        difficulty: 'intermediate',
        install: `clawhub install ${slug}`,
        clawhub_url: `https://clawhub.ai/skills/${slug}`,
        registry_url: `https://clawhub.ai/skills/${slug}`,
        requires: [],
        best_when: 'Markets move on news',
        version: null,
        content_hash: null,
        status: 'approved',
        revision: 1,
        created_at: undefined,
      },
    );
    assert.ok((await listed('?category=momentum')).includes(slug));
    assert.ok(!(await listed('?category=arbitrage')).includes(slug));
  });

  it('when a slug is resubmitted, then its own pending submission is replaced; anyone else gets 409', async () => {
    const [agent, other] = await Promise.all([registerAgent(), registerAgent()]);
    const slug = slugOf();
    await submit(agent, submission(slug)).expect(200);
    const again = await submit(agent, submission(slug, { name: 'Momentum scalper v2' }));
    assert.equal(again.body.skill.name, 'Momentum scalper v2');
    assert.equal(again.body.skill.revision, 2);
    const clash = await submit(other, submission(slug));
    assert.equal(clash.status, 409);
    assert.equal(clash.body.error_code, 'skill_exists');
    const stale = await review(slug, { status: 'approved', revision: 1 });
    assert.equal(stale.status, 409, 'the operator read revision 1; revision 2 is what would be approved');
    assert.equal(stale.body.error_code, 'skill_changed');
    await review(slug, { status: 'rejected', revision: 2, note: 'Duplicates an existing skill.' }).expect(
      200,
    );
    const mine = await api().get('/api/sdk/skills/mine').set(asAgent(agent)).expect(200);
    assert.equal(mine.body.skills[0].status, 'rejected');
    assert.equal(mine.body.skills[0].review_note, 'Duplicates an existing skill.');
    const fixed = await submit(agent, submission(slug, { description: 'Now different.' }));
    assert.equal(fixed.body.skill.status, 'pending', 'a rejected skill can be fixed and sent again');
    await review(slug, { status: 'approved', revision: 3 }).expect(200);
    assert.equal((await submit(agent, submission(slug))).status, 409, 'an approved slug is not resubmitted');
    assert.equal(
      (await submit(agent, { ...submission(slugOf()), best_when: null, category: null })).status,
      200,
    );
    const elsewhere = await submit(
      agent,
      submission(slugOf(), { clawhub_url: 'https://clawhub.ai/skills/other-skill' }),
    );
    assert.equal(elsewhere.status, 422, 'the registry page must be the one the install command installs');
    const js = await submit(agent, submission('x-js', { clawhub_url: 'javascript:alert(1)//x-js' }));
    assert.equal(js.status, 422);

    assert.equal((await submit(agent, submission('Not A Slug'))).status, 422);
    const noUrl = await submit(agent, { ...submission(slugOf()), clawhub_url: undefined });
    assert.equal(noUrl.status, 422);
    assert.deepEqual(noUrl.body.detail[0].loc, ['body', 'registry_url']);
    assert.equal((await review('no-such-skill', { status: 'approved' })).status, 404);
    assert.equal(
      (await api().put(`/api/admin/skills/${slug}/review`).send({ status: 'approved' })).status,
      401,
    );
  });

  it(`when an agent has ${MAX_PENDING_PER_AGENT} skills waiting, then a new slug is refused until one is reviewed`, async () => {
    const agent = await registerAgent();
    const slugs = Array.from({ length: MAX_PENDING_PER_AGENT }, slugOf);
    for (const slug of slugs) await submit(agent, submission(slug)).expect(200);
    const over = await submit(agent, submission(slugOf()));
    assert.equal(over.status, 429);
    assert.equal(over.body.error_code, 'too_many_pending_skills');
    await submit(agent, submission(slugs[0]!, { name: 'Edited' })).expect(200);
    await review(slugs[0]!, { status: 'approved', revision: 2 }).expect(200);
    await submit(agent, submission(slugOf())).expect(200);
  });

  it('when skills are approved, then the briefing recommends ones the agent has not traded with', async () => {
    const [author, trader] = await Promise.all([registerAgent(), registerAgent()]);
    const [used, fresh] = [slugOf(), slugOf()];
    for (const slug of [used, fresh]) {
      await submit(author, submission(slug)).expect(200);
      await review(slug, { status: 'approved' }).expect(200);
    }
    const market = await makeMarket();
    await trade(trader, { market_id: market._id, side: 'yes', amount: 1, skill_slug: used });
    const res = await api().get('/api/sdk/briefing').set(asAgent(trader)).expect(200);
    const ids = res.body.opportunities.recommended_skills.map((s: { id: string }) => s.id);
    assert.ok(ids.includes(fresh));
    assert.ok(!ids.includes(used), 'a skill already traded with is not recommended');
    assert.ok(ids.length <= 3);
    const rec = res.body.opportunities.recommended_skills.find((s: { id: string }) => s.id === fresh);
    assert.deepEqual(rec, {
      id: fresh,
      name: 'Momentum scalper',
      install: `clawhub install ${fresh}`,
      best_when: 'Markets move on news',
    });
  });
  it('when an agent from before the kept skill list asks for a briefing or trades with a skill, then its earlier trades are counted once and kept', async () => {
    const { models } = testContext().deps;
    const [author, trader] = await Promise.all([registerAgent(), registerAgent()]);
    const [used, second, fresh] = [slugOf(), slugOf(), slugOf()];
    for (const slug of [used, second, fresh]) {
      await submit(author, submission(slug)).expect(200);
      await review(slug, { status: 'approved' }).expect(200);
    }
    const market = await makeMarket();
    await trade(trader, { market_id: market._id, side: 'yes', amount: 1, skill_slug: used });
    const kept = async () =>
      (await models.Agent.findById(trader.agent_id, { skillSlugs: 1 }).lean())?.skillSlugs;
    assert.deepEqual(await kept(), [used], 'the trade added its skill');

    // As an agent stored before the list: its skills are only in its trades.
    await models.Agent.updateOne({ _id: trader.agent_id }, { $unset: { skillSlugs: 1 } });
    const res = await api().get('/api/sdk/briefing').set(asAgent(trader)).expect(200);
    const ids = res.body.opportunities.recommended_skills.map((s: { id: string }) => s.id);
    assert.ok(!ids.includes(used), 'a skill traded with before the list is still left out');
    assert.ok(ids.includes(fresh));
    assert.deepEqual(await kept(), [used], 'the briefing counted it from the trades and kept it');

    await models.Agent.updateOne({ _id: trader.agent_id }, { $unset: { skillSlugs: 1 } });
    await noteSkillUsed(models, { _id: trader.agent_id, skillSlugs: null }, second);
    assert.deepEqual(
      ((await kept()) ?? []).sort(),
      [used, second].sort(),
      'a new skill, and the ones before it',
    );
  });
});
