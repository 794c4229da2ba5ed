import assert from 'node:assert/strict';
import { GroupRunner, type GroupAnswer } from '../../shared/util/group-runner.js';

/** A group that answers when told to. */
function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const doubled = (keys: number[]) =>
  new Map(keys.map((k): [number, GroupAnswer<number>] => [k, { result: k * 2 }]));

/** A group runner that records the groups it runs; `answer` gets each group and its number (from 1). */
function recordingRunner(
  opts: { maxGroup: number; waitMs: number },
  answer: (keys: number[], nth: number) => Promise<Map<number, GroupAnswer<number>>> = async (keys) =>
    doubled(keys),
) {
  const groups: number[][] = [];
  const runner = new GroupRunner<number, number>({
    ...opts,
    itemName: 'item',
    runGroup: (keys) => (groups.push(keys), answer(keys, groups.length)),
  });
  return { runner, groups };
}

describe('group runner #unit', () => {
  it('when a lone item comes with no wait, then its group starts within the call and answers it', async () => {
    const { runner, groups } = recordingRunner({ maxGroup: 8, waitMs: 0 });
    const answer = runner.run(1);
    assert.deepEqual(groups, [[1]]);
    assert.equal(await answer, 2);
  });

  it('when items come while a group runs, then they go together in the next ones, at most maxGroup each, in order', async () => {
    const first = deferred<void>();
    const { runner, groups } = recordingRunner({ maxGroup: 2, waitMs: 0 }, async (keys, nth) => {
      if (nth === 1) await first.promise;
      return doubled(keys);
    });
    const answers = [1, 2, 3, 4, 5].map((k) => runner.run(k));
    first.resolve();
    assert.deepEqual(await Promise.all(answers), [2, 4, 6, 8, 10]);
    assert.deepEqual(groups, [[1], [2, 3], [4, 5]]);
  });

  it('when waitMs is set, then the items that come within it join the first group', async () => {
    const { runner, groups } = recordingRunner({ maxGroup: 8, waitMs: 20 });
    const one = runner.run(1);
    await new Promise((r) => setTimeout(r, 5));
    const two = runner.run(2);
    assert.deepEqual(await Promise.all([one, two]), [2, 4]);
    assert.deepEqual(groups, [[1, 2]]);
  });

  it('when a group answers one item with an error or not at all, then only that caller is rejected', async () => {
    const refused = new Error('refused');
    const runner = new GroupRunner<string, string>({
      maxGroup: 8,
      waitMs: 5,
      itemName: 'trade',
      runGroup: async () =>
        new Map<string, GroupAnswer<string>>([
          ['ok', { result: 'filled' }],
          ['bad', { error: refused }],
        ]),
    });
    const [ok, again, bad, lost] = ['ok', 'ok', 'bad', 'lost'].map((k) => runner.run(k));
    assert.equal(await ok, 'filled');
    assert.equal(await again, 'filled', 'a key asked twice shares its answer');
    await assert.rejects(bad!, (err) => err === refused);
    await assert.rejects(lost!, /^Error: trade lost was not answered$/);
  });

  it('when a group throws, then each of its items is rejected with that error and the next group runs', async () => {
    const down = new Error('database down');
    const { runner, groups } = recordingRunner({ maxGroup: 8, waitMs: 5 }, async (keys, nth) => {
      if (nth === 1) throw down;
      return doubled(keys);
    });
    const failing = [1, 2].map((k) => runner.run(k));
    for (const f of failing) await assert.rejects(f, (err) => err === down);
    assert.equal(await runner.run(3), 6);
    assert.deepEqual(groups, [[1, 2], [3]]);
  });
});
