import assert from 'node:assert/strict';
import fc from 'fast-check';
import { price, stateAt, withShares } from '../../shared/domains/venues/sim/lmsr.js';
import { reanchor } from '../../shared/domains/venues/sim/reanchor.js';

const logit = (p: number) => Math.log(p / (1 - p));

describe('Re-anchoring a sim book toward the venue price #unit', () => {
  it('when one half-life passes, then the log-odds gap to the venue halves', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.02, max: 0.98, noNaN: true }),
        fc.double({ min: 0.02, max: 0.98, noNaN: true }),
        fc.integer({ min: 500, max: 20_000 }),
        (from, venue, b) => {
          const s = stateAt(b, from);
          const r = reanchor(s, venue, 300_000, 300_000);
          const gapBefore = logit(r.priceBefore) - logit(venue);
          const gapAfter = logit(r.priceAfter) - logit(venue);
          assert.ok(Math.abs(gapAfter - gapBefore / 2) < 1e-6, `${gapBefore} → ${gapAfter}`);
        },
      ),
    );
  });

  it('when no time passed, then nothing moves; when much time passed, then the book reaches the venue', () => {
    const s = withShares(stateAt(2000, 0.5), 'yes', 300);
    assert.ok(Math.abs(reanchor(s, 0.3, 0, 300_000).deltaQ0Yes) < 1e-9);
    const far = reanchor(s, 0.3, 30 * 300_000, 300_000);
    assert.ok(Math.abs(far.priceAfter - 0.3) < 1e-6);
  });

  it('when the anchor moves, then the fills are untouched and the new price is the LMSR price of the moved state', () => {
    const s = withShares(stateAt(1000, 0.4), 'no', 120);
    const r = reanchor(s, 0.7, 150_000, 300_000);
    const moved = { ...s, qYes: s.qYes + r.deltaQ0Yes };
    assert.equal(moved.qNo, s.qNo);
    assert.ok(Math.abs(price(moved, 'yes') - r.priceAfter) < 1e-12);
  });
});
