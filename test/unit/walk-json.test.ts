import assert from 'node:assert/strict';
import { pathDeeperThan, walkJson } from '../../shared/util/walk-json.js';

const nestedArrays = (levels: number): unknown => JSON.parse(`${'['.repeat(levels)}1${']'.repeat(levels)}`);

describe('walking parsed JSON without recursion #unit', () => {
  it('when a document nests 100,000 levels, then the first too-deep path is found and the stack holds', () => {
    const path = pathDeeperThan({ ok: 1, deep: nestedArrays(100_000) }, 64);
    assert.deepEqual(path, ['deep', ...Array<number>(64).fill(0)]);
  });

  it('when a document stays within the limit, then no path is reported', () => {
    assert.equal(pathDeeperThan({ a: [{ b: [1, 2] }], c: 'x' }, 4), null);
    assert.equal(pathDeeperThan('a scalar', 0), null);
  });

  it('when a visitor skips a value, then its children are not visited, and stop ends the walk', () => {
    const seen: string[] = [];
    walkJson({ a: { hidden: 1 }, b: [2, 3] }, (_node, at) => {
      seen.push(at.path().join('.'));
      if (at.key === 'a') return 'skip';
      if (at.key === 1) return 'stop';
      return undefined;
    });
    assert.ok(!seen.includes('a.hidden'), JSON.stringify(seen));
    assert.ok(seen.includes('b.1') && !seen.includes('b.0'), JSON.stringify(seen));
  });
});
