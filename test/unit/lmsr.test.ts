import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  cost,
  costOfShares,
  DEFAULT_LIQUIDITY,
  price,
  proceedsForShares,
  rawPrice,
  sharesForSpend,
  stateAt,
  withShares,
  type LmsrState,
  type Outcome,
} from '../../shared/domains/markets/lmsr.js';

const arbState = fc
  .record({
    b: fc.double({ min: 100, max: 50_000, noNaN: true }),
    p: fc.double({ min: 0.02, max: 0.98, noNaN: true }),
  })
  .map(({ b, p }) => stateAt(b, p));
const arbSide = fc.constantFrom<Outcome>('yes', 'no');
const arbSpend = fc.double({ min: 0.01, max: 10_000, noNaN: true });

describe('LMSR #unit', () => {
  it('prices sum to 1', () => {
    fc.assert(
      fc.property(arbState, fc.double({ min: -5000, max: 5000, noNaN: true }), (s, shift) => {
        const moved = withShares(s, 'yes', shift);
        assert.ok(Math.abs(rawPrice(moved, 'yes') + rawPrice(moved, 'no') - 1) < 1e-12);
      }),
    );
  });

  it('cost is path-independent: buying in two steps costs what one step costs', () => {
    fc.assert(
      fc.property(
        arbState,
        arbSide,
        fc.double({ min: 0.001, max: 5000, noNaN: true }),
        fc.double({ min: 0.001, max: 5000, noNaN: true }),
        (s, side, d1, d2) => {
          const twoSteps = costOfShares(s, side, d1) + costOfShares(withShares(s, side, d1), side, d2);
          const oneStep = costOfShares(s, side, d1 + d2);
          const direct = cost(withShares(s, side, d1 + d2)) - cost(s);
          assert.ok(Math.abs(twoSteps - oneStep) <= 1e-9 * Math.max(1, oneStep));
          assert.ok(Math.abs(direct - oneStep) <= 1e-7 * Math.max(1, oneStep));
        },
      ),
    );
  });

  it('buy-then-sell never gains', () => {
    fc.assert(
      fc.property(arbState, arbSide, arbSpend, (s, side, spend) => {
        const shares = sharesForSpend(s, side, spend);
        const proceeds = proceedsForShares(withShares(s, side, shares), side, shares);
        assert.ok(proceeds <= spend + 1e-9 * spend, `spent ${spend}, got back ${proceeds}`);
      }),
    );
  });

  it('spend → shares → cost round-trips within 1e-9', () => {
    fc.assert(
      fc.property(arbState, arbSide, arbSpend, (s, side, spend) => {
        const shares = sharesForSpend(s, side, spend);
        assert.ok(Math.abs(costOfShares(s, side, shares) - spend) <= 1e-9 * Math.max(1, spend));
      }),
    );
  });

  it('matches the worked example: b=1000 at 50% spending 100 buys 190.9 shares and moves the price to 0.548', () => {
    const s = stateAt(1000, 0.5);
    const shares = sharesForSpend(s, 'yes', 100);
    assert.ok(Math.abs(shares - 190.9) < 0.05);
    assert.ok(Math.abs(price(withShares(s, 'yes', shares), 'yes') - 0.5476) < 0.0005);
  });

  it('the default liquidity keeps a 500 $SIM buy on a 50% market at or under 60%', () => {
    const s: LmsrState = stateAt(DEFAULT_LIQUIDITY, 0.5);
    const after = withShares(s, 'yes', sharesForSpend(s, 'yes', 500));
    assert.ok(rawPrice(after, 'yes') <= 0.6, String(rawPrice(after, 'yes')));
    assert.ok(rawPrice(after, 'yes') > 0.59);
  });

  it('prices are clamped away from 0 and 1 and huge states do not overflow', () => {
    const s = { b: 100, qYes: 1e6, qNo: 0 };
    assert.equal(price(s, 'yes'), 0.999);
    assert.equal(price(s, 'no'), 0.001);
    assert.ok(Number.isFinite(cost(s)));
  });
});
