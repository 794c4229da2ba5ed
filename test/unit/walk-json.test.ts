import assert from 'node:assert/strict';
import { firstShapeProblem, walkJson } from '../../shared/util/walk-json.js';

const nestedArrays = (levels: number): unknown => JSON.parse(`${'['.repeat(levels)}1${']'.repeat(levels)}`);

describe('walking parsed JSON without recursion #unit', () => {
  it('when a document nests 100,000 levels, then the first too-deep path is found and the stack holds', () => {
    const problem = firstShapeProblem({ ok: 1, deep: nestedArrays(100_000) }, 64);
    assert.deepEqual(problem, { kind: 'too_deep', path: ['deep', ...Array<number>(64).fill(0)] });
  });

  it('when a document stays within the limit, then no path is reported', () => {
    assert.equal(firstShapeProblem({ a: [{ b: [1, 2] }], c: 'x' }, 4), null);
    assert.equal(firstShapeProblem('a scalar', 0), null);
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

describe('object keys the database cannot store, found in the same walk #unit', () => {
  for (const [name, key, reason] of [
    ['a NUL inside', 'a\u0000b', /NUL/],
    ['a NUL alone', '\u0000', /NUL/],
    ['a leading $', '$where', /"\$"/],
    ['a leading .', '.hidden', /"\."/],
  ] as const) {
    it(`when a key deep in an array of objects has ${name}, then its path and the reason are reported`, () => {
      const doc = JSON.parse(JSON.stringify({ ok: 1, items: [{ fine: 1 }, { nested: { [key]: 1 } }] }));
      const problem = firstShapeProblem(doc, 64);
      assert.ok(problem?.kind === 'unstorable_key', JSON.stringify(problem));
      assert.deepEqual(problem.path, ['items', 1, 'nested', key]);
      assert.match(problem.reason, reason);
    });
  }

  it('when keys only look unusual (dots inside or at the end, a $ inside, unicode, __proto__), then nothing is reported', () => {
    const doc = JSON.parse('{"model.v2": 1, "x.": 2, "a$b": 3, "édge": {"__proto__": 4, "constructor": 5}}');
    assert.equal(firstShapeProblem(doc, 64), null);
  });

  it('when a NUL is in a value rather than a key, then nothing is reported (strings store any character)', () => {
    assert.equal(firstShapeProblem({ note: 'a\u0000b', list: ['\u0000'] }, 64), null);
  });
});
