import assert from 'node:assert/strict';
import { nameSkeleton } from '../../shared/domains/agents/agent-name.js';

describe('agent name lookalike keys #unit', () => {
  it('when names differ only by case, script lookalikes (Greek, Cyrillic), a capital I for an l, 0 for O, accents or separators, then they share one key', () => {
    const alike = ['Alpha', 'ALPHA', 'Αlpha', 'аlpha', 'AIpha', 'A l p h a', 'Álpha', 'al_pha'];
    assert.deepEqual(new Set(alike.map(nameSkeleton)), new Set(['alpha']));
    assert.equal(nameSkeleton('0mega'), nameSkeleton('omega'));
    assert.equal(nameSkeleton('BOT-1'), nameSkeleton('bot-l'));
  });

  it('when names differ only by the case of an i, then they share one key (a capital I also reads as an l)', () => {
    // Found by CI: "Alphamwzgmikx" and "ALPHAMWZGMIKX" had different keys, so the board showed
    // the copy plain whenever the test's time-based name happened to contain an i.
    assert.equal(nameSkeleton('Alphamwzgmikx'), nameSkeleton('ALPHAMWZGMIKX'));
    assert.equal(nameSkeleton('mini'), nameSkeleton('MINI'));
    assert.equal(nameSkeleton('MINI'), nameSkeleton('mlnl'));
  });

  it('when names read differently, then their keys differ', () => {
    assert.notEqual(nameSkeleton('alpha'), nameSkeleton('alpine'));
    assert.notEqual(nameSkeleton('rnega'), nameSkeleton('omega'));
  });
});
