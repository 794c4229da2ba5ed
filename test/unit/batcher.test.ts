import assert from 'node:assert/strict';
import { Batcher, type BatchAnswer } from '../../shared/util/batcher.js';

/** A batch that answers when told to. */
function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const doubled = (keys: number[]) =>
  new Map(keys.map((k): [number, BatchAnswer<number>] => [k, { result: k * 2 }]));

/** A batcher that records the batches it runs; `answer` gets each batch and its number (from 1). */
function recordingBatcher(
  opts: { maxBatch: number; waitMs: number },
  answer: (keys: number[], nth: number) => Promise<Map<number, BatchAnswer<number>>> = async (keys) =>
    doubled(keys),
) {
  const batches: number[][] = [];
  const batcher = new Batcher<number, number>({
    ...opts,
    itemName: 'item',
    runBatch: (keys) => (batches.push(keys), answer(keys, batches.length)),
  });
  return { batcher, batches };
}

describe('batcher #unit', () => {
  it('when a lone item comes with no wait, then its batch starts within the call and answers it', async () => {
    const { batcher, batches } = recordingBatcher({ maxBatch: 8, waitMs: 0 });
    const answer = batcher.run(1);
    assert.deepEqual(batches, [[1]]);
    assert.equal(await answer, 2);
  });

  it('when items come while a batch runs, then they go together in the next ones, at most maxBatch each, in order', async () => {
    const first = deferred<void>();
    const { batcher, batches } = recordingBatcher({ maxBatch: 2, waitMs: 0 }, async (keys, nth) => {
      if (nth === 1) await first.promise;
      return doubled(keys);
    });
    const answers = [1, 2, 3, 4, 5].map((k) => batcher.run(k));
    first.resolve();
    assert.deepEqual(await Promise.all(answers), [2, 4, 6, 8, 10]);
    assert.deepEqual(batches, [[1], [2, 3], [4, 5]]);
  });

  it('when waitMs is set, then the items that come within it join the first batch', async () => {
    const { batcher, batches } = recordingBatcher({ maxBatch: 8, waitMs: 20 });
    const one = batcher.run(1);
    await new Promise((r) => setTimeout(r, 5));
    const two = batcher.run(2);
    assert.deepEqual(await Promise.all([one, two]), [2, 4]);
    assert.deepEqual(batches, [[1, 2]]);
  });

  it('when a batch answers one item with an error or not at all, then only that caller is rejected', async () => {
    const refused = new Error('refused');
    const batcher = new Batcher<string, string>({
      maxBatch: 8,
      waitMs: 5,
      itemName: 'trade',
      runBatch: async () =>
        new Map<string, BatchAnswer<string>>([
          ['ok', { result: 'filled' }],
          ['bad', { error: refused }],
        ]),
    });
    const [ok, again, bad, lost] = ['ok', 'ok', 'bad', 'lost'].map((k) => batcher.run(k));
    assert.equal(await ok, 'filled');
    assert.equal(await again, 'filled', 'a key asked twice shares its answer');
    await assert.rejects(bad!, (err) => err === refused);
    await assert.rejects(lost!, /^Error: trade lost was not answered$/);
  });

  it('when a batch throws, then each of its items is rejected with that error and the next batch runs', async () => {
    const down = new Error('database down');
    const { batcher, batches } = recordingBatcher({ maxBatch: 8, waitMs: 5 }, async (keys, nth) => {
      if (nth === 1) throw down;
      return doubled(keys);
    });
    const failing = [1, 2].map((k) => batcher.run(k));
    for (const f of failing) await assert.rejects(f, (err) => err === down);
    assert.equal(await batcher.run(3), 6);
    assert.deepEqual(batches, [[1, 2], [3]]);
  });
});
