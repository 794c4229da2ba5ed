import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Express } from 'express';
import request from 'supertest';
import { buildApp } from '../../api/app.js';
import { hashApiKey } from '../../shared/domains/agents/api-key.js';
import { closeDeps, createDeps } from '../../shared/composition/create-deps.js';
import type { Deps } from '../../shared/composition/deps.js';
import { startInvalidation } from '../../shared/infra/invalidation.js';
import { createLogger } from '../../shared/infra/logger.js';
import { testContext } from '../support/context.js';
import { until } from '../support/until.js';
import { makeMarket, recordPendingBuy } from '../support/factories.js';
import { tradeContext } from '../../shared/domains/trading/context.js';
import { runTrade } from '../../shared/domains/trading/run-trade.js';
import { api, registerAgent, type RegisteredAgent } from '../support/http.js';
import { asUser, claim, tokenFor } from '../support/users.js';

const asAgent = (a: RegisteredAgent) => ({ Authorization: `Bearer ${a.api_key}` });

async function claimedAgent() {
  const sub = `u-${randomUUID()}`;
  const user = tokenFor(sub);
  const agent = await registerAgent({ name: 'cached' });
  assert.equal((await claim(user, agent.claim_code)).status, 200);
  return { sub, user, agent };
}

describe('process caches across API processes #integration', () => {
  /** A second API process: its own Deps (connections, caches, subscriber) on the same Redis and MongoDB. */
  let other: { deps: Deps; app: Express };
  /** Agent invalidations the other process received (sentinels included). */
  const arrived = new Set<string>();

  before(async () => {
    const ctx = testContext();
    const deps = await createDeps(
      ctx.env,
      { redisUrl: ctx.redisUrl, mongoUri: ctx.mongoUri },
      createLogger('silent', 'test'),
    );
    deps.invalidation.onInvalidate('agent', (id) => arrived.add(id));
    other = { deps, app: buildApp(deps, { operatorToken: ctx.operatorToken }) };
  });

  after(async () => {
    await closeDeps(other.deps);
  });

  /**
   * Returns once the other process has received every invalidation published so far: a sentinel
   * published now on the same channel reaches it after them (pub/sub keeps order, and each change
   * publishes before it answers). Its own caches drop an entry before this listener runs, so the
   * next request there must see the change: not after a cache expiry, not after a few more tries.
   */
  async function deliveredThere(): Promise<void> {
    const sentinel = `sentinel-${randomUUID()}`;
    await testContext().deps.invalidation.publish('agent', sentinel);
    assert.ok(
      await until(async () => arrived.has(sentinel), Boolean),
      'the invalidation channel reached the other process',
    );
  }

  const cachedThere = (agent: RegisteredAgent) =>
    other.deps.caches.agentsByKeyHash.get(hashApiKey(agent.api_key));
  const settingsThere = (agent: RegisteredAgent) =>
    request(other.app).get('/api/sdk/settings').set(asAgent(agent)).expect(200);

  it('when an owner releases an agent, then once the invalidation reaches another API process its key changes nothing there, and after a reactivation it does again', async () => {
    const { user, agent } = await claimedAgent();
    const market = await makeMarket();
    const tighten = () =>
      request(other.app).patch('/api/sdk/settings').set(asAgent(agent)).send({ max_trades_per_day: 40 });
    await tighten().expect(200);
    assert.equal(cachedThere(agent)?.status, 'claimed', 'the other process holds the agent');

    await api().post(`/api/sdk/agents/${agent.agent_id}/release`).set(asUser(user)).expect(200);
    await deliveredThere();
    const suspended = await tighten();
    assert.equal(suspended.status, 403);
    assert.equal(suspended.body.error_code, 'agent_suspended');
    const refused = await request(other.app)
      .post('/api/sdk/trade')
      .set(asAgent(agent))
      .send({ market_id: market._id, side: 'yes', amount: 1 })
      .expect(200);
    assert.equal(refused.body.success, false);
    assert.equal(refused.body.error_code, 'agent_suspended');
    const me = await request(other.app).get('/api/sdk/agents/me').set(asAgent(agent)).expect(200);
    assert.equal(me.body.status, 'suspended');

    await api().post(`/api/sdk/agents/${agent.agent_id}/reactivate`).set(asUser(user)).expect(200);
    await deliveredThere();
    assert.equal((await tighten()).status, 200);
  });

  it('when an owner pauses trading, then once the invalidation reaches another API process it refuses the agent’s trades before queueing them', async () => {
    const { deps } = testContext();
    const { sub, user, agent } = await claimedAgent();
    const market = await makeMarket();
    const buy = () =>
      request(other.app)
        .post('/api/sdk/trade')
        .set(asAgent(agent))
        .send({ market_id: market._id, side: 'yes', amount: 1 })
        .expect(200);
    const recorded = () => deps.models.Trade.countDocuments({ agentId: agent.agent_id });
    assert.equal((await buy()).body.success, true, 'warms the agent, its owner and the settings there');
    assert.equal(other.deps.caches.settings.get(`user:${sub}`)?.pausedByUser, false, 'held there');

    await api().patch('/api/sdk/user/settings').set(asUser(user)).send({ trading_paused: true }).expect(200);
    await deliveredThere();
    const before = await recorded();
    const paused = await buy();
    // Refused by the API from its settings, not later by the worker: nothing was recorded.
    assert.equal(paused.body.error_code, 'trading_paused');
    assert.equal(await recorded(), before);

    await api().patch('/api/sdk/user/settings').set(asUser(user)).send({ trading_paused: false }).expect(200);
    await deliveredThere();
    assert.equal((await buy()).body.success, true);
  });

  it('when an automaton halts, then once the invalidation reaches another process its API refuses the agent’s trades and its worker a trade queued before the halt', async () => {
    const agent = await registerAgent({ name: 'automaton-cached' });
    await api()
      .post('/api/sdk/automaton/init')
      .set(asAgent(agent))
      .send({ budget_usd: 100, horizon_days: 30, venue: 'sim' })
      .expect(200);
    const market = await makeMarket();
    const buy = () =>
      request(other.app)
        .post('/api/sdk/trade')
        .set(asAgent(agent))
        .send({ market_id: market._id, side: 'yes', amount: 1 })
        .expect(200);
    assert.equal((await buy()).body.success, true, 'warms the automaton there');
    assert.equal(other.deps.caches.automatons.get(agent.agent_id)?.none, false, 'held there');
    const queued = await recordPendingBuy(agent.agent_id, market._id, { amountMicro: 1_000_000 });

    await api().post('/api/sdk/automaton/halt').set(asAgent(agent)).expect(200);
    await deliveredThere();
    assert.equal((await buy()).body.error_code, 'automaton_halted');
    const taken = await runTrade(tradeContext(other.deps), queued);
    assert.equal(taken.error_code, 'automaton_halted', JSON.stringify(taken));

    await api().post('/api/sdk/automaton/resume').set(asAgent(agent)).expect(200);
    await deliveredThere();
    assert.equal((await buy()).body.success, true);
  });

  it('when an owner changes a setting or is moved to another tier, then another API process answers with it once the invalidation reaches it', async () => {
    const { sub, user, agent } = await claimedAgent();
    const seen = await settingsThere(agent);
    assert.equal(seen.body.max_trades_per_day, 50);
    assert.equal(seen.body.tier, 'free');

    await api().patch('/api/sdk/user/settings').set(asUser(user)).send({ max_trades_per_day: 7 }).expect(200);
    await deliveredThere();
    assert.equal((await settingsThere(agent)).body.max_trades_per_day, 7);

    await api()
      .put(`/api/admin/users/${sub}/tier`)
      .set('Authorization', `Bearer ${testContext().operatorToken}`)
      .send({ tier: 'pro' })
      .expect(200);
    await deliveredThere();
    assert.equal((await settingsThere(agent)).body.tier, 'pro');
  });

  it('when a human claims an agent, then once the invalidation reaches another API process it applies the owner’s settings to it', async () => {
    const agent = await registerAgent({ name: 'to-claim' });
    assert.equal((await settingsThere(agent)).body.settings_owner, 'agent');
    const user = tokenFor(`u-${randomUUID()}`);
    assert.equal((await claim(user, agent.claim_code)).status, 200);
    await deliveredThere();
    assert.equal((await settingsThere(agent)).body.settings_owner, 'user');
  });

  it('when an agent changes behind the service’s back (no message), then a process serves its cached copy at most LOCAL_CACHE_SECONDS', async function () {
    const { deps, env } = testContext();
    this.timeout(env.LOCAL_CACHE_SECONDS * 1000 + 10_000);
    const { agent } = await claimedAgent();
    const tighten = () =>
      request(other.app).patch('/api/sdk/settings').set(asAgent(agent)).send({ max_trades_per_day: 40 });
    await tighten().expect(200);
    await deps.models.Agent.updateOne({ _id: agent.agent_id }, { $set: { status: 'suspended' } });
    assert.equal((await tighten()).status, 200, 'the cached copy is served meanwhile');
    // The copy was stored before this wait began; once its whole lifetime has passed (on a slow
    // machine, more), it is never served again.
    await new Promise((r) => setTimeout(r, env.LOCAL_CACHE_SECONDS * 1000));
    assert.equal((await tighten()).status, 403);
  });

  it('when the invalidation connection drops, then every cache is emptied once it is back and messages flow again', async () => {
    const { deps, env } = testContext();
    const name = `invalidation-test-${randomUUID().slice(0, 8)}`;
    const log = createLogger('silent', 'test');
    const inv = await startInvalidation({
      redis: deps.infra,
      prefix: env.QUEUE_PREFIX,
      publisher: deps.redis,
      log,
      connectionName: name,
    });
    try {
      let resets = 0;
      const dropped: string[] = [];
      inv.onReset(() => resets++);
      inv.onInvalidate('agent', (id) => dropped.push(id));
      assert.equal(inv.healthy, true);

      const clients = (await deps.redis.client('LIST')) as string;
      const id = /id=(\d+) .*name=(\S+)/.exec(
        clients.split('\n').find((l) => l.includes(`name=${name} `))!,
      )![1]!;
      await deps.redis.client('KILL', 'ID', id);
      assert.ok(await until(async () => resets > 0 && inv.healthy, Boolean), 'reconnected, caches emptied');

      await deps.invalidation.publish('agent', 'after-reconnect');
      assert.ok(await until(async () => dropped.includes('after-reconnect'), Boolean), 'a message after it');

      // Redis out of reach for the publisher: the writer's own caches still drop it, and nothing throws.
      const broken = deps.redis.duplicate();
      broken.disconnect();
      const offline = await startInvalidation({
        redis: deps.infra,
        prefix: env.QUEUE_PREFIX,
        publisher: broken,
        log,
      });
      const local: string[] = [];
      offline.onInvalidate('user', (u) => local.push(u));
      await offline.publish('user', 'u-offline');
      assert.deepEqual(local, ['u-offline']);
      offline.close();
    } finally {
      inv.close();
    }
  });
});
