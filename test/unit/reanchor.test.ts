import assert from 'node:assert/strict';
import fc from 'fast-check';
import { price, stateAt, withShares } from '../../shared/domains/markets/lmsr.js';
import { reanchor } from '../../shared/domains/markets/reanchor.js';

const logit = (p: number) => Math.log(p / (1 - p));
const HALF_LIFE = 300_000;
const probability = fc.double({ min: 0.02, max: 0.98, noNaN: true });

describe('Re-anchoring a sim book to the venue price #unit', () => {
  it('when the venue moves and no agent traded, then the book follows the venue in full at once', () => {
    fc.assert(
      fc.property(probability, probability, fc.integer({ min: 500, max: 20_000 }), (from, to, b) => {
        const r = reanchor(stateAt(b, from), to, from, 30_000, HALF_LIFE);
        assert.ok(Math.abs(r.priceAfter - to) < 1e-9, `${from} → ${to}: ${r.priceAfter}`);
      }),
    );
  });

  it("when agents moved the book, then their impact (in log-odds) halves every half-life on top of the venue's move", () => {
    fc.assert(
      fc.property(
        probability,
        probability,
        fc.integer({ min: -500, max: 500 }),
        fc.integer({ min: 1000, max: 20_000 }),
        (anchored, venue, shares, b) => {
          const traded = withShares(stateAt(b, anchored), 'yes', shares);
          const impact = logit(price(traded, 'yes')) - logit(anchored);
          const r = reanchor(traded, venue, anchored, HALF_LIFE, HALF_LIFE);
          const left = logit(r.priceAfter) - logit(venue);
          // Prices are clamped to [0.001, 0.999]: compare only where neither end is clamped (fast-check
          // counts a discarded sample and fails the run if too few remain).
          fc.pre(r.priceAfter > 0.001 && r.priceAfter < 0.999 && price(traded, 'yes') < 0.999);
          assert.ok(Math.abs(left - impact / 2) < 1e-6, `impact ${impact} → ${left}`);
        },
      ),
    );
  });

  it('when the book was never anchored, then the whole gap to the venue is impact and fades', () => {
    const s = stateAt(2000, 0.5);
    const r = reanchor(s, 0.7, null, HALF_LIFE, HALF_LIFE);
    assert.ok(Math.abs(logit(r.priceAfter) - logit(0.7) / 2) < 1e-9);
    assert.ok(Math.abs(reanchor(s, 0.7, null, 0, HALF_LIFE).deltaQ0Yes) < 1e-9);
  });

  it('when the anchor moves, then the fills are untouched and the new price is the LMSR price of the moved state', () => {
    const s = withShares(stateAt(1000, 0.4), 'no', 120);
    const r = reanchor(s, 0.7, 0.4, 150_000, HALF_LIFE);
    const moved = { ...s, qYes: s.qYes + r.deltaQ0Yes };
    assert.equal(moved.qNo, s.qNo);
    assert.ok(Math.abs(price(moved, 'yes') - r.priceAfter) < 1e-12);
  });
});
