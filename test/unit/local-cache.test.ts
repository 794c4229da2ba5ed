import assert from 'node:assert/strict';
import {
  DatabaseStalledError,
  isDatabaseUnavailable,
  withinDatabaseDeadline,
} from '../../shared/infra/database-unavailable.js';
import { LocalCache } from '../../shared/infra/local-cache.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A load that answers when told to. */
function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('local cache', () => {
  it('when it is full, then the least recently used entry goes first', () => {
    const cache = new LocalCache<number>(2, () => 60_000);
    cache.set('a', 1);
    cache.set('b', 2);
    assert.equal(cache.get('a'), 1); // a is now the most recent
    cache.set('c', 3);
    assert.equal(cache.get('b'), undefined);
    assert.equal(cache.get('a'), 1);
    assert.equal(cache.get('c'), 3);
    assert.equal(cache.size, 2);
  });

  it('when a value is older than refreshAfterMs, then it answers at once while one load replaces it; a failed load changes nothing', async () => {
    const cache = new LocalCache<number>(10, () => 60_000);
    cache.set('a', 1);
    await sleep(30);
    let loads = 0;
    const next = deferred<number>();
    const load = () => (loads++, next.promise);
    assert.equal(await cache.getOrLoad('a', load, { refreshAfterMs: 20 }), 1, 'the old value, at once');
    assert.equal(await cache.getOrLoad('a', load, { refreshAfterMs: 20 }), 1);
    assert.equal(loads, 1, 'one load in the background, shared');
    next.resolve(2);
    await sleep(0);
    assert.equal(await cache.getOrLoad('a', load, { refreshAfterMs: 20 }), 2, 'the new value');

    await sleep(30);
    const failing = () => Promise.reject(new Error('down'));
    assert.equal(await cache.getOrLoad('a', failing, { refreshAfterMs: 20 }), 2);
    await sleep(0);
    assert.equal(cache.get('a'), 2, 'still served after the failed load');
  });

  it('when an entry is older than the max age, or the max age tightens, then it is no longer served', async () => {
    let maxAge = 60_000;
    const cache = new LocalCache<number>(10, () => maxAge);
    cache.set('a', 1);
    cache.set('b', 2, performance.now() + 20);
    assert.equal(cache.get('a'), 1);
    await sleep(30);
    assert.equal(cache.get('b'), undefined, 'its own expiry');
    maxAge = 10; // e.g. the invalidation channel went down
    assert.equal(cache.get('a'), undefined);
    maxAge = 0;
    cache.set('c', 3);
    assert.equal(cache.get('c'), undefined, 'a max age of 0 turns the cache off');
  });

  it('when many ask for a missing key at once, then one load answers them all and null is not kept', async () => {
    const cache = new LocalCache<string>(10, () => 60_000);
    let loads = 0;
    const load = async () => {
      loads++;
      await sleep(10);
      return 'v';
    };
    const answers = await Promise.all(Array.from({ length: 5 }, () => cache.getOrLoad('k', load)));
    assert.deepEqual(answers, ['v', 'v', 'v', 'v', 'v']);
    assert.equal(loads, 1);
    assert.equal(await cache.getOrLoad('k', load), 'v');
    assert.equal(loads, 1, 'served from the cache');
    assert.equal(await cache.getOrLoad('k', load, { fresh: true }), 'v');
    assert.equal(loads, 2, 'fresh reads again');

    assert.equal(await cache.getOrLoad('missing', async () => null), null);
    assert.equal(cache.get('missing'), undefined);
  });

  it('when an entry is dropped while it loads, then the load answers its caller but the stale value is not kept', async () => {
    const cache = new LocalCache<{ status: string }>(10, () => 60_000);
    const slow = deferred<{ status: string }>();
    const pending = cache.getOrLoad('agent', () => slow.promise);
    cache.deleteWhere((a) => a.status === 'claimed'); // the change lands while the old state is read
    slow.resolve({ status: 'claimed' });
    assert.deepEqual(await pending, { status: 'claimed' });
    assert.equal(cache.get('agent'), undefined);
    assert.deepEqual(await cache.getOrLoad('agent', async () => ({ status: 'suspended' })), {
      status: 'suspended',
    });

    cache.set('x', { status: 'claimed' });
    cache.deleteWhere((a) => a.status === 'claimed');
    assert.equal(cache.get('x'), undefined);
    assert.deepEqual(cache.get('agent'), { status: 'suspended' }, 'others stay');
  });

  it('when a load never settles, then its callers get the bound’s error and the next miss loads anew instead of joining it', async () => {
    const cache = new LocalCache<string>(
      10,
      () => 60_000,
      (load, key) => withinDatabaseDeadline(load, 50, `the cache load of ${key}`),
    );
    const never = new Promise<string>(() => undefined);
    const first = cache.getOrLoad('market', () => never);
    const joined = cache.getOrLoad('market', () => Promise.resolve('not asked'));
    for (const caller of [first, joined])
      await assert.rejects(
        caller,
        (err: unknown) => err instanceof DatabaseStalledError && isDatabaseUnavailable(err),
      );
    assert.equal(await cache.getOrLoad('market', async () => 'read again'), 'read again');
    assert.equal(cache.get('market'), 'read again');
  });
});
