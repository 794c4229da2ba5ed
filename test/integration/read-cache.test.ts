import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { cachedRead, refreshAheadMs } from '../../shared/infra/read-cache.js';
import { testContext } from '../support/context.js';
import { makeMarket } from '../support/factories.js';
import { api, registerAgent } from '../support/http.js';

type Row = { market_id: string; seconds_to_resolution: number | null };
const withoutSeconds = (body: { markets: Row[] }) => ({
  ...body,
  markets: body.markets.map((m) => ({ ...m, seconds_to_resolution: 'x' })),
});

describe('shared read cache #integration', () => {
  it('when many readers ask for the same key, then it is computed once and shared until it expires', async () => {
    const { deps, env } = testContext();
    const name = `t-${randomUUID()}`;
    let computed = 0;
    const compute = async () => {
      computed++;
      await new Promise((r) => setTimeout(r, 50));
      return { n: computed };
    };
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => cachedRead(deps.redis, env.QUEUE_PREFIX, name, { a: 1 }, 1, compute)),
    );
    assert.equal(computed, 1);
    assert.ok(answers.every((a) => a.n === 1));
    assert.deepEqual(
      await cachedRead(deps.redis, env.QUEUE_PREFIX, name, { a: 2 }, 1, compute),
      { n: 2 },
      'other parameters, other key',
    );
    await new Promise((r) => setTimeout(r, 1100));
    assert.deepEqual(
      await cachedRead(deps.redis, env.QUEUE_PREFIX, name, { a: 1 }, 1, compute),
      { n: 3 },
      'recomputed after the TTL',
    );
  });

  it('when a value is read in its last quarter of life, then it is refreshed once in the background while readers keep getting the current value, and the next readers get the refreshed one without a computation in front of them', async () => {
    const { deps, env } = testContext();
    const name = `t-${randomUUID()}`;
    let computed = 0;
    let release: () => void = () => {};
    const compute = async () => {
      computed++;
      // The refresh (the second computation) waits until the test lets it finish.
      if (computed > 1) await new Promise<void>((r) => (release = r));
      return { n: computed };
    };
    const read = () => cachedRead(deps.redis, env.QUEUE_PREFIX, name, {}, 4, compute);
    assert.deepEqual(await read(), { n: 1 });
    assert.equal(refreshAheadMs(4), 1000);
    // Into the refresh-ahead window (the last second of four), but not expired.
    await new Promise((r) => setTimeout(r, 3200));
    const during = await Promise.all(Array.from({ length: 10 }, read));
    assert.ok(
      during.every((v) => v.n === 1),
      'readers get the current value at once',
    );
    assert.equal(computed, 2, 'one background refresh, however many readers');
    release();
    await new Promise((r) => setTimeout(r, 50));
    // Past the first value's expiry: the refreshed value is there, nothing computes in front.
    await new Promise((r) => setTimeout(r, 1000));
    assert.deepEqual(await read(), { n: 2 });
    assert.equal(computed, 2, 'served from the refresh');
  });

  it('when a background refresh fails, then the current value still serves until it expires, and the next read computes', async () => {
    const { deps, env } = testContext();
    const name = `t-${randomUUID()}`;
    let computed = 0;
    const compute = async () => {
      computed++;
      if (computed === 2) throw new Error('refresh failed');
      return { n: computed };
    };
    const read = () => cachedRead(deps.redis, env.QUEUE_PREFIX, name, {}, 4, compute);
    assert.deepEqual(await read(), { n: 1 });
    await new Promise((r) => setTimeout(r, 3200));
    assert.deepEqual(await read(), { n: 1 }, 'the failed refresh is not the reader’s error');
    await new Promise((r) => setTimeout(r, 1100));
    assert.deepEqual(await read(), { n: 3 });
  });

  it('when Redis is unavailable, then the read is computed directly instead of failing', async () => {
    const { deps, env } = testContext();
    const broken = deps.redis.duplicate();
    broken.disconnect();
    assert.deepEqual(await cachedRead(broken, env.QUEUE_PREFIX, 'x', {}, 5, async () => ({ ok: true })), {
      ok: true,
    });
  });

  it('when a market list is served from the shared cache, then it is the computed answer with seconds_to_resolution of the moment, every warning and the caller’s agent_id', async () => {
    const { env } = testContext();
    const tag = `t-${randomUUID().slice(0, 8)}`;
    const soon = Date.now() + 3600_000;
    await Promise.all([
      makeMarket({ tags: [tag], resolvesAt: new Date(soon), volume24hMicro: 2e6 }),
      makeMarket({ tags: [tag], resolvesAt: null, volume24hMicro: 1e6 }),
    ]);
    const [a, b] = await Promise.all([registerAgent(), registerAgent()]);
    const path = `/api/sdk/markets?tags=${tag}&sort=bogus&colour=red`;
    const list = (key: string) => api().get(path).set('Authorization', `Bearer ${key}`).expect(200);
    const computed = (await list(a.api_key)).body;
    assert.match(computed.warning, /'colour'.*'bogus'/s, 'the unknown parameter first, then the list’s own');
    const saved = env.READ_CACHE_SECONDS;
    env.READ_CACHE_SECONDS = 30;
    try {
      const firstAsked = Date.now();
      const first = await list(a.api_key);
      const firstAnswered = Date.now();
      await new Promise((r) => setTimeout(r, 1100));
      const againAsked = Date.now();
      const again = await list(b.api_key);
      const againAnswered = Date.now();
      assert.match(again.headers['content-type'] ?? '', /application\/json/);
      for (const res of [first, again])
        assert.deepEqual(withoutSeconds({ ...res.body, agent_id: a.agent_id }), withoutSeconds(computed));
      assert.equal(again.body.agent_id, b.agent_id);
      const s1 = first.body.markets[0].seconds_to_resolution as number;
      const s2 = again.body.markets[0].seconds_to_resolution as number;
      // Each answer counts from the moment it was served (whole seconds), cached or not.
      const servedBetween = (s: number, asked: number, answered: number) =>
        s >= Math.floor((soon - answered) / 1000) && s <= Math.ceil((soon - asked) / 1000);
      assert.ok(servedBetween(s1, firstAsked, firstAnswered), `first: ${s1}`);
      assert.ok(servedBetween(s2, againAsked, againAnswered), `again: ${s2}`);
      assert.ok(s1 - s2 >= 1, `counted down from ${s1} to ${s2}`);
      assert.equal(again.body.markets[1].seconds_to_resolution, null);

      const open = (await api().get(`/api/markets?tags=${tag}`).expect(200)).body;
      assert.equal(open.markets.length, 2);
      assert.equal(open.warning, undefined);
      assert.equal(typeof open.markets[0].seconds_to_resolution, 'number');
    } finally {
      env.READ_CACHE_SECONDS = saved;
    }
  });

  it('when one market is served from the shared cache, then it is the computed answer with seconds_to_resolution of the moment and the caller’s agent_id, and a trade shows in it once its entry expires', async () => {
    const { env } = testContext();
    const soon = Date.now() + 3600_000;
    const market = await makeMarket({ resolvesAt: new Date(soon) });
    const [a, b] = await Promise.all([registerAgent(), registerAgent()]);
    const path = `/api/sdk/markets/${market._id}`;
    const read = (key: string) => api().get(path).set('Authorization', `Bearer ${key}`).expect(200);
    const computed = (await read(a.api_key)).body;
    const saved = env.READ_CACHE_SECONDS;
    env.READ_CACHE_SECONDS = 2;
    try {
      const first = await read(a.api_key);
      await new Promise((r) => setTimeout(r, 1100));
      const againAsked = Date.now();
      const again = await read(b.api_key);
      const againAnswered = Date.now();
      assert.match(again.headers['content-type'] ?? '', /application\/json/);
      const timeless = (body: { market: Row; agent_id: string }) => ({
        ...body,
        market: { ...body.market, seconds_to_resolution: 'x' },
      });
      assert.deepEqual(timeless(first.body), timeless(computed));
      assert.deepEqual(timeless({ ...again.body, agent_id: a.agent_id }), timeless(computed));
      assert.equal(again.body.agent_id, b.agent_id);
      const s = again.body.market.seconds_to_resolution as number;
      assert.ok(
        s >= Math.floor((soon - againAnswered) / 1000) && s <= Math.ceil((soon - againAsked) / 1000),
        `served with the seconds of its moment: ${s}`,
      );
      assert.ok(computed.market.seconds_to_resolution - s >= 1, 'counted down while cached');

      const buy = await api()
        .post('/api/sdk/trade')
        .set('Authorization', `Bearer ${a.api_key}`)
        .send({ market_id: market._id, side: 'yes', amount: 50, venue: 'sim' })
        .expect(200);
      assert.equal(buy.body.success, true);
      await new Promise((r) => setTimeout(r, 2100));
      const after = (await read(a.api_key)).body;
      assert.ok(
        after.market.current_probability > computed.market.current_probability,
        `the buy moved the cached price: ${computed.market.current_probability} → ${after.market.current_probability}`,
      );
    } finally {
      env.READ_CACHE_SECONDS = saved;
    }
  });
});
