import assert from 'node:assert/strict';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { buildApp } from '../../api/app.js';
import { jwtSecret } from '../../shared/infra/jwt.js';
import { minuteSlot } from '../../shared/infra/queue/slots.js';
import { testContext } from '../support/context.js';
import { makeMarket, trade } from '../support/factories.js';
import { api, randomIp, registerAgent } from '../support/http.js';
import { asUser, claim, tokenFor } from '../support/users.js';

describe('users, claiming and agent management #integration', () => {
  it('when a user claims an agent, then it is linked, claimed and can be listed; the code works once', async () => {
    const user = tokenFor(`u-${randomUUID()}`);
    const agent = await registerAgent({ name: 'claimable' });
    const res = await claim(user, agent.claim_code);
    assert.equal(res.status, 200);
    assert.equal(res.body.claimed, true);
    assert.equal(res.body.status, 'claimed');
    const me = await api().get('/api/sdk/agents/me').set('Authorization', `Bearer ${agent.api_key}`);
    assert.equal(me.body.claimed, true);
    assert.equal(me.body.real_trading_enabled, true);
    assert.equal(me.body.status, 'claimed');
    const info = await api().get(`/api/sdk/agents/claim/${agent.claim_code}`);
    assert.equal(info.body.claimed, true);
    const list = await api().get('/api/sdk/agents').set(asUser(user));
    assert.deepEqual(
      list.body.agents.map((a: { agent_id: string }) => a.agent_id),
      [agent.agent_id],
    );
    assert.equal(list.body.tier, 'free');
    assert.equal(list.body.agent_limit, 3);
    const again = await claim(tokenFor(`u-${randomUUID()}`), agent.claim_code);
    assert.equal(again.status, 409);
    assert.equal(again.body.error_code, 'already_claimed');
    assert.equal((await claim(user, 'reef-ZZZZZZ')).status, 404);
    const malformed = await claim(user, 'not a code');
    assert.equal(malformed.status, 422);
    assert.deepEqual(malformed.body.detail[0].loc, ['body', 'claim_code']);
  });

  it('when an agent is released, trading is refused; reactivated, it trades again; at the free limit, 409 tier_limit_reached', async () => {
    const user = tokenFor(`u-${randomUUID()}`);
    const agents = await Promise.all([1, 2, 3, 4].map((i) => registerAgent({ name: `mine-${i}` })));
    for (const a of agents.slice(0, 3)) assert.equal((await claim(user, a.claim_code)).status, 200);
    const fourth = await claim(user, agents[3]!.claim_code);
    assert.equal(fourth.status, 409);
    assert.equal(fourth.body.error_code, 'tier_limit_reached');
    assert.equal(typeof fourth.body.fix, 'string');

    const market = await makeMarket();
    const [a1] = agents;
    const released = await api().post(`/api/sdk/agents/${a1!.agent_id}/release`).set(asUser(user));
    assert.equal(released.body.status, 'suspended');
    const refused = await trade(a1!, { market_id: market._id, side: 'yes', amount: 1 });
    assert.equal(refused.body.error, 'Agent is suspended.');
    assert.equal((await claim(user, agents[3]!.claim_code)).status, 200, 'a released agent frees its slot');
    const blocked = await api().post(`/api/sdk/agents/${a1!.agent_id}/reactivate`).set(asUser(user));
    assert.equal(blocked.status, 409);
    assert.equal(blocked.body.error_code, 'tier_limit_reached');
    await api().post(`/api/sdk/agents/${agents[3]!.agent_id}/release`).set(asUser(user));
    const back = await api().post(`/api/sdk/agents/${a1!.agent_id}/reactivate`).set(asUser(user));
    assert.equal(back.status, 200);
    assert.equal(back.body.status, 'claimed');
    assert.equal((await trade(a1!, { market_id: market._id, side: 'yes', amount: 1 })).body.success, true);
  });

  it('when the operator sets a tier, then the agent limit follows it', async () => {
    const sub = `u-${randomUUID()}`;
    const user = tokenFor(sub);
    const res = await api()
      .put(`/api/admin/users/${sub}/tier`)
      .set('Authorization', `Bearer ${testContext().operatorToken}`)
      .send({ tier: 'pro' });
    assert.equal(res.status, 200);
    assert.equal(res.body.tier, 'pro');
    const list = await api().get('/api/sdk/agents').set(asUser(user));
    assert.equal(list.body.agent_limit, 10);
    assert.equal(
      (await api().put(`/api/admin/users/${sub}/tier`).set(asUser(user)).send({ tier: 'elite' })).status,
      401,
      'a user cannot set tiers',
    );
  });

  it('when reactivations race at the limit, then the limit is never exceeded', async () => {
    const sub = `u-${randomUUID()}`;
    const user = tokenFor(sub);
    const agents = await Promise.all([1, 2, 3].map((i) => registerAgent({ name: `race-${i}` })));
    for (const a of agents) await claim(user, a.claim_code);
    for (const a of agents) await api().post(`/api/sdk/agents/${a.agent_id}/release`).set(asUser(user));
    const extra = await Promise.all([1, 2].map(() => registerAgent()));
    for (const a of extra) assert.equal((await claim(user, a.claim_code)).status, 200);
    const answers = await Promise.all(
      agents.map((a) => api().post(`/api/sdk/agents/${a.agent_id}/reactivate`).set(asUser(user))),
    );
    assert.equal(answers.filter((r) => r.status === 200).length, 1);
    assert.equal(answers.filter((r) => r.status === 409).length, 2);
    const active = await testContext().deps.models.Agent.countDocuments({
      claimedBy: sub,
      status: { $ne: 'suspended' },
    });
    assert.equal(active, 3);
    assert.equal((await testContext().deps.models.User.findById(sub).lean())!.activeAgents, 3);
  });

  describe('security', () => {
    it("when user B targets user A's agent, then it is a 404 for reading, releasing and reactivating", async () => {
      const a = tokenFor(`u-${randomUUID()}`);
      const b = tokenFor(`u-${randomUUID()}`);
      const agent = await registerAgent();
      await claim(a, agent.claim_code);
      assert.deepEqual((await api().get('/api/sdk/agents').set(asUser(b))).body.agents, []);
      for (const action of ['release', 'reactivate']) {
        const res = await api().post(`/api/sdk/agents/${agent.agent_id}/${action}`).set(asUser(b));
        assert.equal(res.status, 404, action);
      }
      const stored = await testContext().deps.models.Agent.findById(agent.agent_id).lean();
      assert.equal(stored!.status, 'claimed');
    });

    it("when a user changes their agent's settings, then it applies; another user's agent is a 404 and read-only fields are refused", async () => {
      const a = tokenFor(`u-${randomUUID()}`);
      const b = tokenFor(`u-${randomUUID()}`);
      const agent = await registerAgent();
      await claim(a, agent.claim_code);
      const ok = await api()
        .patch(`/api/sdk/agents/${agent.agent_id}/settings`)
        .set(asUser(a))
        .send({ name: 'renamed', auto_redeem_enabled: false });
      assert.equal(ok.status, 200);
      assert.equal(ok.body.name, 'renamed');
      assert.equal(ok.body.auto_redeem_enabled, false);
      assert.equal(
        (
          await api()
            .patch(`/api/sdk/agents/${agent.agent_id}/settings`)
            .set(asUser(b))
            .send({ name: 'stolen' })
        ).status,
        404,
      );
      assert.equal(
        (
          await api()
            .patch(`/api/sdk/agents/${agent.agent_id}/settings`)
            .set(asUser(a))
            .send({ status: 'claimed' })
        ).status,
        422,
      );
      assert.equal((await testContext().deps.models.Agent.findById(agent.agent_id).lean())!.name, 'renamed');
    });

    it('when an agent key calls a user route or a user token calls an agent route, then 401', async () => {
      const agent = await registerAgent();
      const user = tokenFor(`u-${randomUUID()}`);
      const keyOnUserRoute = await api()
        .get('/api/sdk/agents')
        .set('Authorization', `Bearer ${agent.api_key}`);
      assert.equal(keyOnUserRoute.status, 401);
      assert.match(keyOnUserRoute.body.fix, /not an agent API key/);
      const jwtOnAgentRoute = await api().get('/api/sdk/agents/me').set(asUser(user));
      assert.equal(jwtOnAgentRoute.status, 401);
      assert.equal(jwtOnAgentRoute.body.detail, 'Missing or invalid Authorization header');
    });

    it('when a token is unsigned (alg none), badly signed, expired or has no expiry, then 401', async () => {
      const sub = `u-${randomUUID()}`;
      const none = jwt.sign({ sub }, '', { algorithm: 'none', expiresIn: 600 });
      const badSignature = jwt.sign({ sub }, 'x'.repeat(40), { algorithm: 'HS256', expiresIn: 600 });
      const expired = jwt.sign(
        { sub, exp: Math.floor(Date.now() / 1000) - 10 },
        jwtSecret(testContext().env),
        { algorithm: 'HS256' },
      );
      const noExpiry = jwt.sign({ sub }, jwtSecret(testContext().env), { algorithm: 'HS256' });
      for (const [label, token] of Object.entries({ none, badSignature, expired, noExpiry })) {
        const res = await api().get('/api/sdk/agents').set(asUser(token));
        assert.equal(res.status, 401, label);
        assert.equal(res.body.detail, 'Missing or invalid Authorization header');
      }
    });

    it('when the service verifies RS256 and a token is HS256-signed with the public key (alg confusion), or iss/aud are wrong, then 401', async () => {
      const ctx = testContext();
      const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
      const env = {
        ...ctx.env,
        JWT_PUBLIC_KEY: pem,
        JWT_ISSUER: 'https://id.example',
        JWT_AUDIENCE: 'agent-trading',
      };
      const app = buildApp({ ...ctx.deps, env }, { operatorToken: ctx.operatorToken });
      const sub = `u-${randomUUID()}`;
      const good = jwt.sign({ sub }, privateKey, {
        algorithm: 'RS256',
        expiresIn: 600,
        issuer: 'https://id.example',
        audience: 'agent-trading',
      });
      assert.equal((await request(app).get('/api/sdk/agents').set(asUser(good))).status, 200);
      const confused = jwt.sign({ sub }, pem, {
        algorithm: 'HS256',
        expiresIn: 600,
        issuer: 'https://id.example',
        audience: 'agent-trading',
      });
      const wrongIssuer = jwt.sign({ sub }, privateKey, {
        algorithm: 'RS256',
        expiresIn: 600,
        issuer: 'https://evil.example',
        audience: 'agent-trading',
      });
      const wrongAudience = jwt.sign({ sub }, privateKey, {
        algorithm: 'RS256',
        expiresIn: 600,
        issuer: 'https://id.example',
        audience: 'other',
      });
      for (const [label, token] of Object.entries({ confused, wrongIssuer, wrongAudience })) {
        assert.equal((await request(app).get('/api/sdk/agents').set(asUser(token))).status, 401, label);
      }
    });

    it('when one IP claims 11 times in a minute, then the 11th gets 429', async () => {
      const user = tokenFor(`u-${randomUUID()}`);
      const ip = randomIp();
      const statuses = [];
      for (let i = 0; i < 11; i++) statuses.push((await claim(user, 'reef-ZZZZZZ', ip)).status);
      assert.deepEqual(statuses.slice(0, 10), Array(10).fill(404));
      assert.equal(statuses[10], 429);
    });
  });

  it('when a crash left a tier-slot counter one off, then the reconcile job repairs it on its second look; a counter in motion waits', async () => {
    const { deps } = testContext();
    const [leaked, busy] = [`u-${randomUUID()}`, `u-${randomUUID()}`];
    for (const sub of [leaked, busy]) {
      const agent = await registerAgent();
      await claim(tokenFor(sub), agent.claim_code).expect(200);
    }
    // The collection directly: a slot taken without its claim, as a process killed between the two writes leaves it.
    const users = deps.mongo.collection<{ _id: string }>('users');
    for (const sub of [leaked, busy]) await users.updateOne({ _id: sub }, { $inc: { activeAgents: 1 } });
    const active = async (sub: string) => (await deps.models.User.findById(sub).lean())!.activeAgents;
    let minute = 0;
    const reconcile = async () => {
      const slot = minuteSlot(new Date(Date.UTC(2030, 0, 1, 0, minute++)));
      const run = await deps.queues.enqueueAndWait('reconcile-agent-slots', { slot }, 10_000);
      assert.equal(run.state, 'completed');
    };

    await reconcile();
    assert.equal(await active(leaked), 2, 'the first look only notes the mismatch');
    // A slot change between the two looks (another claim) means the counter is in motion.
    await claim(tokenFor(busy), (await registerAgent()).claim_code).expect(200);
    await reconcile();
    assert.equal(await active(leaked), 1, 'repaired on the second look');
    assert.equal(await active(busy), 3, 'changed since the first look: left alone');
    await reconcile();
    assert.equal(await active(busy), 2, 'repaired once two looks in a row agree');
  });
});
