import assert from 'node:assert/strict';
import { countAbove } from '../../shared/domains/reads/board-ranks.js';

describe('board ranks by binary search #unit', () => {
  it('when values tie, lie outside the board or the board is empty, then only the strictly greater count', () => {
    const sorted = Float64Array.from([-5, 0, 0, 0, 3, 9, 9]);
    assert.equal(countAbove(sorted, 0), 3);
    assert.equal(countAbove(sorted, 9), 0);
    assert.equal(countAbove(sorted, -5), 6);
    assert.equal(countAbove(sorted, -6), 7);
    assert.equal(countAbove(sorted, 4), 2);
    assert.equal(countAbove(new Float64Array(), 1), 0);
    // Every value of a long board against a linear count.
    const board = Float64Array.from({ length: 1001 }, (_, i) => Math.floor(i / 3) - 100).sort();
    for (const v of [...board, -1000, 1000, 0.5])
      assert.equal(countAbove(board, v), board.filter((x) => x > v).length, String(v));
  });
});
