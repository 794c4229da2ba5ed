import assert from 'node:assert/strict';
import { oldestPrintsAfter } from '../../shared/domains/venues/print-window.js';
import type { VenuePrint } from '../../shared/domains/venues/venue-adapter.js';

const print = (id: string, timestamp: number): VenuePrint => ({
  id,
  timestamp,
  yesPrice: 0.5,
  shares: 1,
  usd: 0.5,
  side: 'BUY',
  transactionHash: null,
  blockNumber: null,
  logIndex: null,
  maker: null,
  taker: null,
});
const ids = (ps: VenuePrint[]) => ps.map((p) => p.id);

describe('oldestPrintsAfter (the publicPrints answer from newest-first pages) #unit', () => {
  // Newest first, as venues page them: c2 and c1 share second 12; b at 11; a at 10.
  const tape = [print('d', 13), print('c2', 12), print('c1', 12), print('b', 11), print('a', 10)];

  it('when prints at or before the watermark come along, then only later ones answer, oldest first, in venue order within a second', () => {
    assert.deepEqual(ids(oldestPrintsAfter(tape, { afterSec: 10, limit: 10 })), ['b', 'c1', 'c2', 'd']);
  });

  it('when a print repeats at a page seam, then it answers once', () => {
    const seam = [print('d', 13), print('c2', 12), print('c2', 12), print('c1', 12)];
    assert.deepEqual(ids(oldestPrintsAfter(seam, { afterSec: 0, limit: 10 })), ['c1', 'c2', 'd']);
  });

  it('when the limit falls inside a second, then the answer stops at the second before', () => {
    assert.deepEqual(ids(oldestPrintsAfter(tape, { afterSec: 0, limit: 3 })), ['a', 'b']);
    assert.deepEqual(ids(oldestPrintsAfter(tape, { afterSec: 0, limit: 4 })), ['a', 'b', 'c1', 'c2']);
  });

  it('when one second alone holds more than the limit, then that second answers whole rather than leave a hole', () => {
    assert.deepEqual(ids(oldestPrintsAfter(tape, { afterSec: 11, limit: 1 })), ['c1', 'c2']);
  });

  it('when the limit is zero, then nothing answers', () => {
    assert.deepEqual(oldestPrintsAfter(tape, { afterSec: 0, limit: 0 }), []);
  });
});
