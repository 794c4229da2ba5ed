import assert from 'node:assert/strict';
import { testContext } from '../support/context.js';
import { api, randomIp, registerAgent } from '../support/http.js';

describe('agents #integration', () => {
  describe('POST /api/sdk/agents/register', () => {
    it('when an agent registers with only a name, then it gets a one-time key, a claim code and 10,000 $SIM', async () => {
      const res = await api()
        .post('/api/sdk/agents/register')
        .set('X-Forwarded-For', randomIp())
        .send({ name: 'a' });
      assert.equal(res.status, 200);
      const body = res.body;
      assert.match(body.agent_id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      assert.match(body.api_key, /^sk_live_[A-Za-z0-9_-]{32,}$/);
      assert.ok(body.api_key.startsWith(body.key_prefix.replace('...', '')));
      assert.match(body.claim_code, /^[a-z]+(-[2-9A-HJKMNP-Z]{6}){3}$/);
      assert.equal(body.claim_url, `http://localhost:8080/claim/${body.claim_code}`);
      assert.equal(body.status, 'unclaimed');
      assert.equal(body.starting_balance, 10000);
      assert.equal(typeof body.starting_balance, 'number');
      assert.deepEqual(body.limits, {
        sim: true,
        real_trading: false,
        max_trade_usd: 100,
        daily_limit_usd: 500,
      });
    });

    it('when description, homepage and skill_url are given, then they are stored', async () => {
      const agent = await registerAgent({
        name: 'full',
        description: 'does things',
        homepage: 'https://example.org',
        skill_url: null,
      });
      const stored = await testContext().deps.models.Agent.findById(agent.agent_id).lean();
      assert.equal(stored?.description, 'does things');
      assert.equal(stored?.homepage, 'https://example.org');
      assert.equal(stored?.skillUrl, null);
    });

    it('when an agent registers, then no document in the database contains the API key in clear', async () => {
      const agent = await registerAgent({ name: 'secret-keeper' });
      const db = testContext().deps.mongo.db!;
      for (const { name } of await db.listCollections().toArray()) {
        const docs = await db.collection(name).find({}).toArray();
        const dump = JSON.stringify(docs);
        assert.ok(!dump.includes(agent.api_key), `collection ${name} contains the key in clear`);
        assert.ok(
          !dump.includes(agent.api_key.slice(8)),
          `collection ${name} contains the key body in clear`,
        );
      }
      const stored = await testContext().deps.models.Agent.findById(agent.agent_id).lean();
      assert.match(stored!.apiKeyHash, /^[0-9a-f]{64}$/);
    });

    it('when name is missing, then 422 carries the spec validation body with loc ["body","name"], error and fix', async () => {
      const res = await api()
        .post('/api/sdk/agents/register')
        .set('X-Forwarded-For', randomIp())
        .send({ description: 'x' });
      assert.equal(res.status, 422);
      assert.ok(Array.isArray(res.body.detail));
      const [item] = res.body.detail;
      assert.deepEqual(item.loc, ['body', 'name']);
      assert.equal(item.type, 'missing');
      assert.equal(typeof item.msg, 'string');
      assert.ok('input' in item && 'ctx' in item);
      assert.match(res.body.error, /body\.name/);
      assert.equal(typeof res.body.fix, 'string');
    });

    it('when one IP registers 11 times in a minute, then the 11th gets 429 with Retry-After and fix', async () => {
      const ip = randomIp();
      for (let i = 1; i <= 10; i++) {
        const ok = await api()
          .post('/api/sdk/agents/register')
          .set('X-Forwarded-For', ip)
          .send({ name: `burst-${i}` });
        assert.equal(ok.status, 200, `registration ${i} should pass`);
      }
      const refused = await api()
        .post('/api/sdk/agents/register')
        .set('X-Forwarded-For', ip)
        .send({ name: 'burst-11' });
      assert.equal(refused.status, 429);
      const retryAfter = Number(refused.headers['retry-after']);
      assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${refused.headers['retry-after']}`);
      assert.match(refused.body.detail, /Rate limit exceeded/);
      assert.equal(refused.body.error, refused.body.detail);
      assert.match(refused.body.fix, /Wait \d+ seconds/);
      const otherIp = await api()
        .post('/api/sdk/agents/register')
        .set('X-Forwarded-For', randomIp())
        .send({ name: 'other' });
      assert.equal(otherIp.status, 200, 'another IP is not limited');
    });
  });

  describe('agent names', () => {
    for (const [what, name] of [
      ['a NUL', 'evil\u0000bot'],
      ['a right-to-left override', 'gpt\u202Etob'],
      ['a bidi isolate', 'alpha\u2066x\u2069'],
      ['a left-to-right mark', 'alpha\u200E'],
      ['an Arabic letter mark', 'alpha\u061C'],
      ['a zero-width space', 'al\u200Bpha'],
      ['a zero-width joiner', 'al\u200Dpha'],
      ['a byte-order mark (zero-width no-break space)', 'al\uFEFFpha'],
      ['a lone surrogate', 'alpha\uD800'],
      ['an escape character', 'alpha\u001B[31m'],
      ['a Hangul filler (a letter that draws nothing)', 'Alpha\u3164'],
    ] as const) {
      it(`when an agent registers or renames itself with ${what} in its name, then 422 on name naming the character`, async () => {
        const res = await api()
          .post('/api/sdk/agents/register')
          .set('X-Forwarded-For', randomIp())
          .set('Content-Type', 'application/json')
          .send(`{"name": ${JSON.stringify(name)}}`);
        assert.equal(res.status, 422, JSON.stringify(res.body));
        assert.deepEqual(res.body.detail[0].loc, ['body', 'name']);
        assert.match(res.body.detail[0].msg, /invisible or control character U\+[0-9A-F]{4}/);
        assert.equal(typeof res.body.fix, 'string');

        const agent = await registerAgent({ name: 'renamed-later' });
        const renamed = await api()
          .patch('/api/sdk/agents/me/settings')
          .set('Authorization', `Bearer ${agent.api_key}`)
          .set('Content-Type', 'application/json')
          .send(`{"name": ${JSON.stringify(name)}}`);
        assert.equal(renamed.status, 422, JSON.stringify(renamed.body));
      });
    }

    it('when a name is sent in a compatibility form (full-width letters, a ligature), then it is stored NFKC-normalised', async () => {
      const agent = await registerAgent({ name: ' \uFF21gent \uFB01sh ' });
      const me = await api().get('/api/sdk/agents/me').set('Authorization', `Bearer ${agent.api_key}`);
      assert.equal(me.body.name, 'Agent fish');
    });

    it('when a name carries an emoji with its variation selector, then it is kept as sent', async () => {
      const agent = await registerAgent({ name: 'Heart \u2764\uFE0F bot' });
      const me = await api().get('/api/sdk/agents/me').set('Authorization', `Bearer ${agent.api_key}`);
      assert.equal(me.body.name, 'Heart \u2764\uFE0F bot');
    });
  });

  describe('GET /api/sdk/agents/me', () => {
    it('when called with the key, then it answers the client-contract fields without P&L', async () => {
      const agent = await registerAgent({ name: 'me', description: 'about me' });
      const res = await api().get('/api/sdk/agents/me').set('Authorization', `Bearer ${agent.api_key}`);
      assert.equal(res.status, 200);
      const me = res.body;
      assert.equal(me.agent_id, agent.agent_id);
      assert.equal(me.name, 'me');
      assert.equal(me.description, 'about me');
      assert.equal(me.status, 'unclaimed');
      assert.equal(me.balance, 10000);
      assert.equal(me.claimed, false);
      assert.equal(me.real_trading_enabled, false);
      assert.equal(me.trades_count, 0);
      assert.equal(me.rate_limits.tier, 'free');
      assert.equal(me.auto_redeem_enabled, true);
      assert.equal(me.wallet_address, null);
      assert.ok(!Number.isNaN(Date.parse(me.created_at)));
      for (const pnl of ['sim_pnl', 'total_pnl', 'total_pnl_percent'])
        assert.ok(!(pnl in me), `${pnl} only with include=pnl`);
      assert.ok(!('api_key' in me));
    });

    it('when include contains pnl, then the P&L fields are present', async () => {
      const agent = await registerAgent();
      const res = await api()
        .get('/api/sdk/agents/me?include=rewards,pnl')
        .set('Authorization', `Bearer ${agent.api_key}`);
      assert.equal(res.status, 200);
      assert.equal(res.body.sim_pnl, 0);
      assert.equal(res.body.total_pnl, 0);
      assert.equal(res.body.total_pnl_percent, 0);
    });

    it('when an unknown query parameter is sent, then the answer is 200 with a warning naming the valid ones and the closest', async () => {
      const agent = await registerAgent();
      const res = await api()
        .get('/api/sdk/agents/me?inclde=pnl')
        .set('Authorization', `Bearer ${agent.api_key}`);
      assert.equal(res.status, 200);
      assert.match(res.body.warning, /'inclde' \(did you mean 'include'\?\)/);
      assert.match(res.body.warning, /Valid parameters: include/);
    });

    for (const [label, header] of [
      ['no Authorization header', undefined],
      ['an unknown key', 'Bearer sk_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
      ['a malformed header', 'Token abc'],
      ['a key without the prefix', 'Bearer abcdefabcdefabcdefabcdefabcdefabcdef'],
    ] as const) {
      it(`when called with ${label}, then 401 with the contract body`, async () => {
        const req = api().get('/api/sdk/agents/me');
        if (header) req.set('Authorization', header);
        const res = await req;
        assert.equal(res.status, 401);
        assert.equal(res.body.detail, 'Missing or invalid Authorization header');
        assert.equal(res.body.error, 'Missing or invalid Authorization header');
        assert.equal(typeof res.body.fix, 'string');
      });
    }
  });

  describe('PATCH /api/sdk/agents/me/settings', () => {
    it('when name and auto_redeem_enabled are patched, then /me shows them', async () => {
      const agent = await registerAgent({ name: 'before' });
      const auth = `Bearer ${agent.api_key}`;
      const res = await api()
        .patch('/api/sdk/agents/me/settings')
        .set('Authorization', auth)
        .send({ name: 'after', auto_redeem_enabled: false });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, {
        success: true,
        agent_id: agent.agent_id,
        name: 'after',
        auto_redeem_enabled: false,
      });
      const me = await api().get('/api/sdk/agents/me').set('Authorization', auth);
      assert.equal(me.body.name, 'after');
      assert.equal(me.body.auto_redeem_enabled, false);
    });

    it('when a read-only field such as balance is sent, then 422 names it and nothing changes', async () => {
      const agent = await registerAgent();
      const res = await api()
        .patch('/api/sdk/agents/me/settings')
        .set('Authorization', `Bearer ${agent.api_key}`)
        .send({ name: 'rich', balance: 1e9 });
      assert.equal(res.status, 422);
      assert.deepEqual(res.body.detail[0].loc, ['body', 'balance']);
      assert.equal(res.body.detail[0].type, 'extra_forbidden');
      const stored = await testContext().deps.models.Agent.findById(agent.agent_id).lean();
      assert.equal(stored?.balanceMicro, 10_000_000_000);
      assert.equal(stored?.name, 'test-agent');
    });
  });

  describe('claim code lookup', () => {
    it('when the claim code exists, then public info is returned and never the key', async () => {
      const agent = await registerAgent({ name: 'claimable', description: 'd' });
      const res = await api().get(`/api/sdk/agents/claim/${agent.claim_code}`);
      assert.equal(res.status, 200);
      assert.equal(res.body.agent_id, agent.agent_id);
      assert.equal(res.body.name, 'claimable');
      assert.equal(res.body.claimed, false);
      assert.equal(res.body.status, 'unclaimed');
      const dump = JSON.stringify(res.body);
      assert.ok(!dump.includes(agent.api_key) && !/api_key|key_prefix|apiKeyHash/.test(dump));
    });

    it('when the claim code is unknown, then 404 JSON with fix', async () => {
      const res = await api().get('/api/sdk/agents/claim/reef-ZZZZZZ');
      assert.equal(res.status, 404);
      assert.equal(res.body.detail, 'Claim code not found');
      assert.equal(res.body.error, res.body.detail);
      assert.equal(typeof res.body.fix, 'string');
    });

    it('when the claim page is opened, then it is HTML with the agent name escaped', async () => {
      const agent = await registerAgent({ name: '<script>alert(1)</script>' });
      const res = await api().get(`/claim/${agent.claim_code}`);
      assert.equal(res.status, 200);
      assert.match(res.headers['content-type'] ?? '', /text\/html/);
      assert.ok(res.text.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
      assert.ok(!res.text.includes('<script>alert(1)</script>'));
    });
  });

  it('GET /api/sdk/health answers status, timestamp and version without auth', async () => {
    const res = await api().get('/api/sdk/health');
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'ok');
    assert.equal(res.body.version, '1.0.0');
    assert.ok(!Number.isNaN(Date.parse(res.body.timestamp)));
  });

  it('GET /api/sdk/version-check answers ok without auth when the operator set no versions', async () => {
    const res = await api().get('/api/sdk/version-check?sdk_version=0.24.5');
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'ok');
    assert.equal(res.body.minimum_version, null);
  });
});
