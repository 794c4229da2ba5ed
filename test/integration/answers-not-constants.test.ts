import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Wallet } from 'ethers';
import { testContext } from '../support/context.js';
import { makeMarket } from '../support/factories.js';
import { api, registerAgent } from '../support/http.js';
import { asAgent, claimedAgent, linkExternalWallet } from '../support/polymarket-traders.js';

const asOperator = () => ({ Authorization: `Bearer ${testContext().operatorToken}` });

describe('settings, briefing and context answers that were constants #integration', () => {
  it('when the managed wallet of the claim is replaced by a linked external wallet, then settings say has_legacy_wallet', async () => {
    const { agent } = await claimedAgent();
    const before = await api().get('/api/sdk/settings').set(asAgent(agent)).expect(200);
    assert.equal(before.body.wallet_ownership, 'native', 'the claim gave a managed wallet, in use');
    assert.equal(before.body.has_legacy_wallet, false);
    await linkExternalWallet(agent, Wallet.createRandom() as unknown as Wallet);
    const after = await api().get('/api/sdk/settings').set(asAgent(agent)).expect(200);
    assert.equal(after.body.wallet_ownership, 'external');
    assert.equal(after.body.has_legacy_wallet, true, 'the managed wallet stays beside the external one');
    const unclaimed = await registerAgent();
    const none = await api().get('/api/sdk/settings').set(asAgent(unclaimed)).expect(200);
    assert.equal(none.body.has_legacy_wallet, false);
  });

  it('when the agent reports running an older version of a listed skill, then the briefing lists the update; same or newer versions, unlisted skills and bad input give none', async () => {
    const author = await registerAgent();
    const slug = `skill-${randomUUID().slice(0, 8)}`;
    const submitted = await api()
      .post('/api/sdk/skills')
      .set(asAgent(author))
      .send({
        slug,
        name: 'Versioned skill',
        description: 'Has a version.',
        clawhub_url: `https://clawhub.ai/skills/${slug}`,
        version: '1.4.0',
      })
      .expect(200);
    assert.equal(submitted.body.skill.version, '1.4.0');
    const bad = await api()
      .post('/api/sdk/skills')
      .set(asAgent(author))
      .send({
        slug: `${slug}-x`,
        name: 'x',
        description: 'x',
        clawhub_url: `https://clawhub.ai/skills/${slug}-x`,
        version: 'one',
      });
    assert.equal(bad.status, 422);

    const agent = await registerAgent();
    const briefing = (versions: unknown) =>
      api()
        .get('/api/sdk/briefing')
        .query({ skill_versions: typeof versions === 'string' ? versions : JSON.stringify(versions) })
        .set(asAgent(agent))
        .expect(200);
    assert.deepEqual(
      (await briefing({ [slug]: '1.2.9' })).body.skill_updates,
      [],
      'not listed while pending',
    );
    await api()
      .put(`/api/admin/skills/${slug}/review`)
      .set(asOperator())
      .send({ revision: 1, status: 'approved' })
      .expect(200);
    const listed = await api().get('/api/sdk/skills').expect(200);
    assert.equal(listed.body.skills.find((s: { id: string }) => s.id === slug).version, '1.4.0');

    assert.deepEqual((await briefing({ [slug]: '1.2.9', 'not-a-skill': '0.1' })).body.skill_updates, [
      { slug, current: '1.2.9', latest: '1.4.0', install: `clawhub install ${slug}` },
    ]);
    assert.deepEqual((await briefing({ [slug]: '1.4' })).body.skill_updates, [], '1.4 is 1.4.0');
    assert.deepEqual((await briefing({ [slug]: '1.10.0' })).body.skill_updates, []);
    assert.deepEqual((await briefing({ [slug]: 'latest' })).body.skill_updates, []);
    assert.deepEqual((await briefing('{not json')).body.skill_updates, []);
    assert.deepEqual((await briefing({})).body.skill_updates, []);
  });

  it('when an agent reads a sim market’s context, then ai_consensus is null (reserved, as the API description says)', async () => {
    const agent = await registerAgent();
    const market = await makeMarket();
    const res = await api().get(`/api/sdk/context/${market._id}`).set(asAgent(agent)).expect(200);
    assert.equal(res.body.market.ai_consensus, null);
    const doc = await api().get('/openapi.json').expect(200);
    const op = doc.body.paths['/api/sdk/context/{market_id}'].get;
    assert.match(op.description, /ai_consensus` is reserved and always null/);
    const portfolio = doc.body.paths['/api/sdk/portfolio'].get;
    assert.ok(
      JSON.stringify(doc.body.components.schemas.Portfolio ?? portfolio).includes('Reserved, always empty'),
    );
  });
});
