import assert from 'node:assert/strict';
import { closestMatch, editDistance } from '../../shared/util/closest-match.js';

describe('closest match #unit', () => {
  it('computes edit distances', () => {
    assert.equal(editDistance('kitten', 'sitting'), 3);
    assert.equal(editDistance('', 'abc'), 3);
    assert.equal(editDistance('same', 'same'), 0);
  });

  it('when a word is a plausible typo, then the candidate is suggested; otherwise nothing', () => {
    assert.equal(closestMatch('inclde', ['include', 'limit']), 'include');
    assert.equal(closestMatch('VOLUME', ['volume', 'recent']), 'volume');
    assert.equal(closestMatch('zzzzzz', ['include', 'limit']), undefined);
  });
});
