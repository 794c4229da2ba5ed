import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { cachedRead } from '../../shared/infra/read-cache.js';
import { testContext } from '../support/context.js';

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

  it('when Redis is unavailable, then the read is computed directly instead of failing', async () => {
    const { deps, env } = testContext();
    const broken = deps.redis.duplicate();
    broken.disconnect();
    assert.deepEqual(await cachedRead(broken, env.QUEUE_PREFIX, 'x', {}, 5, async () => ({ ok: true })), {
      ok: true,
    });
  });
});
