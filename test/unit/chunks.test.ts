import assert from 'node:assert/strict';
import { chunks } from '../../shared/util/chunks.js';

describe('chunks of a list for bounded reads #unit', () => {
  it('when 2,501 ids are cut by 1,000, then three slices in order hold them all; an empty list gives none', () => {
    const ids = Array.from({ length: 2501 }, (_, i) => `id-${i}`);
    const sliced = chunks(ids, 1000);
    assert.deepEqual(
      sliced.map((s) => s.length),
      [1000, 1000, 501],
    );
    assert.deepEqual(sliced.flat(), ids);
    assert.deepEqual(chunks([], 1000), []);
  });
});
