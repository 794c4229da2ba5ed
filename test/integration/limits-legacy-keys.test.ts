import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { limitKeys, migrateLegacyDayCounters } from '../../shared/domains/limits/counters.js';
import { isClusterClient } from '../../shared/infra/redis.js';
import { testContext } from '../support/context.js';

describe('limit keys tagged by owner #integration', () => {
  it('when day counters are stored under their untagged names, then a start carries them over once to the owner-tagged keys', async function () {
    const { deps } = testContext();
    // A cluster never held the untagged names (their two names are in different slots there).
    if (isClusterClient(deps.redis)) this.skip();
    const prefix = `${deps.env.QUEUE_PREFIX}-legacy-${randomUUID().slice(0, 8)}`;
    const keys = limitKeys(prefix);
    const owner = 'user:idp|with:colons';
    const legacy = keys.legacyDay(owner, '2026-12-01');
    await deps.redis.hset(legacy, 'trades', '3', 'spent', '5000000');
    await deps.redis.expire(legacy, 3600);
    // A count already taken under the new name since the deploy is kept and added to.
    await deps.redis.hset(keys.day(owner, '2026-12-01'), 'trades', '1', 'spent', '0');

    assert.equal(await migrateLegacyDayCounters(deps.redis, prefix), 1);
    assert.deepEqual(await deps.redis.hgetall(keys.day(owner, '2026-12-01')), {
      trades: '4',
      spent: '5000000',
    });
    assert.ok((await deps.redis.ttl(keys.day(owner, '2026-12-01'))) > 3500, 'the legacy lifetime is kept');
    assert.equal(await deps.redis.exists(legacy), 0);
    assert.equal(await migrateLegacyDayCounters(deps.redis, prefix), 0, 'carried over once');
    await deps.redis.del(keys.day(owner, '2026-12-01'));
  });
});
