import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { matchError } from '../../shared/domains/support/troubleshoot.js';
import { testContext } from '../support/context.js';
import { api, randomIp, registerAgent, type RegisteredAgent } from '../support/http.js';
import { claim, tokenFor } from '../support/users.js';

const asAgent = (a: RegisteredAgent) => ({ Authorization: `Bearer ${a.api_key}` });
const lookup = (code: string, ip = randomIp()) =>
  api().get(`/api/sdk/agents/claim/${code}`).set('X-Forwarded-For', ip);
const rotate = (a: RegisteredAgent) =>
  api().post('/api/sdk/agents/me/claim-code/rotate').set(asAgent(a)).send({});
/** The claim code's random characters: everything after the word, dashes left out. */
const randomBitsOf = (code: string) => code.split('-').slice(1).join('').length * Math.log2(31);

/** Moves the agent's claim code issue time (and registration) back by `hours`, past the TTL when large. */
async function ageClaimCode(agentId: string, hours: number) {
  const then = new Date(Date.now() - hours * 3600_000);
  await testContext().deps.models.Agent.collection.updateOne(
    { _id: agentId as never },
    { $set: { claimCodeIssuedAt: then, createdAt: then } },
  );
  await testContext().deps.invalidation.publish('agent', agentId);
}

/**
 * Issue 16, finding 4: claim codes could be enumerated (no limit on the lookups, ~2^35 codes that
 * never expire, the first claimer owns the agent).
 */
describe('claim codes: rate-limited lookups, 80-bit codes, expiry and rotation #integration', () => {
  it('when one IP looks up claim codes past the per-minute limit, then it gets 429 with Retry-After and a fix, on both lookup paths', async () => {
    const ip = randomIp();
    const answers = [];
    for (let i = 0; i < 30; i++) answers.push((await lookup(`reef-ZZZZZ${i % 10}`, ip)).status);
    assert.ok(
      answers.every((s) => s === 404),
      `the first 30 are answered: ${answers.join(',')}`,
    );
    for (const path of ['/api/sdk/agents/claim/reef-ZZZZZZ', '/claim/reef-ZZZZZZ']) {
      const refused = await api().get(path).set('X-Forwarded-For', ip);
      assert.equal(refused.status, 429, path);
      assert.ok(Number(refused.headers['retry-after']) >= 1, path);
      assert.match(refused.body.fix, /Wait \d+ seconds/, path);
    }
    assert.equal((await lookup('reef-ZZZZZZ')).status, 404, 'another IP is not limited');
  });

  it('when an agent registers, then its claim code carries at least 80 random bits; a code of the old short form still works', async () => {
    const agent = await registerAgent();
    assert.ok(
      randomBitsOf(agent.claim_code) >= 80,
      `${agent.claim_code}: ${randomBitsOf(agent.claim_code)} bits`,
    );
    assert.equal((await lookup(agent.claim_code)).status, 200);

    const old = await registerAgent();
    const oldCode = `reef-${randomUUID()
      .replace(/[^2-9A-HJKMNP-Z]/gi, '')
      .toUpperCase()
      .slice(0, 6)
      .padEnd(6, 'Z')}`;
    await testContext().deps.models.Agent.updateOne({ _id: old.agent_id }, { $set: { claimCode: oldCode } });
    assert.equal((await lookup(oldCode)).status, 200);
    const user = tokenFor(`u-${randomUUID()}`);
    const claimed = await claim(user, oldCode);
    assert.equal(claimed.status, 200, JSON.stringify(claimed.body));
  });

  it('when an unclaimed code is older than CLAIM_CODE_TTL_HOURS, then lookups and the claim answer 410 claim_code_expired with a fix to rotate it', async () => {
    const agent = await registerAgent();
    const ttl = testContext().env.CLAIM_CODE_TTL_HOURS;
    await ageClaimCode(agent.agent_id, ttl - 1);
    assert.equal((await lookup(agent.claim_code)).status, 200, 'still valid within the TTL');
    await ageClaimCode(agent.agent_id, ttl + 1);
    const user = tokenFor(`u-${randomUUID()}`);
    for (const res of [
      await lookup(agent.claim_code),
      await api().get(`/claim/${agent.claim_code}`).set('X-Forwarded-For', randomIp()),
      await claim(user, agent.claim_code),
    ]) {
      assert.equal(res.status, 410, JSON.stringify(res.body));
      assert.equal(res.body.error_code, 'claim_code_expired');
      assert.match(res.body.fix, /claim-code\/rotate/);
      assert.equal(matchError(res.body.error).error_code, 'claim_code_expired', 'troubleshoot explains it');
    }
    const me = await api().get('/api/sdk/agents/me').set(asAgent(agent)).expect(200);
    assert.equal(me.body.claimed, false, 'an expired code claims nothing');
  });

  it('when the agent rotates its claim code, then the new code and claim_url work, the old code is gone, and an expired code is renewed', async () => {
    const agent = await registerAgent();
    await ageClaimCode(agent.agent_id, testContext().env.CLAIM_CODE_TTL_HOURS + 1);
    const asked = Date.now();
    const rotated = await rotate(agent);
    const answered = Date.now();
    assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
    const { claim_code: code, claim_url: url, claim_code_expires_at: expiresAt } = rotated.body;
    assert.notEqual(code, agent.claim_code);
    assert.ok(randomBitsOf(code) >= 80);
    assert.equal(url, `http://localhost:8080/claim/${code}`);
    // Valid for the TTL from the moment it was issued (some moment while the rotation was asked for).
    const ttl = testContext().env.CLAIM_CODE_TTL_HOURS * 3600_000;
    const expires = Date.parse(expiresAt);
    assert.ok(expires >= asked + ttl && expires <= answered + ttl, expiresAt);
    assert.equal((await lookup(agent.claim_code)).status, 404, 'the old code no longer finds the agent');
    assert.equal((await lookup(code)).status, 200);
    const me = await api().get('/api/sdk/agents/me').set(asAgent(agent)).expect(200);
    assert.equal(me.body.claim_url, url);

    const user = tokenFor(`u-${randomUUID()}`);
    assert.equal((await claim(user, agent.claim_code)).status, 404);
    assert.equal((await claim(user, code)).status, 200);
    const again = await rotate(agent);
    assert.equal(again.status, 409, 'a claimed agent has no claim code to rotate');
    assert.equal(again.body.error_code, 'already_claimed');
    assert.equal(typeof again.body.fix, 'string');
  });

  it('when rotation is called without an agent key, then 401', async () => {
    const res = await api().post('/api/sdk/agents/me/claim-code/rotate').send({});
    assert.equal(res.status, 401);
  });
});
