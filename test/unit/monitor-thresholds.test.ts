import assert from 'node:assert/strict';
import fc from 'fast-check';
import { crossed } from '../../shared/domains/monitors/thresholds.js';

/**
 * The boundaries of a position monitor (shared/domains/monitors/thresholds.ts): a side that has lost
 * exactly the stop's share of its cost fires, whatever the float rounding of the price; one worth a
 * micro-unit (the smallest step of money) more does not. Likewise take-profit at exactly +X %.
 *
 * Thresholds and prices are the decimals floats cannot hold (0.1, 0.2, 0.3, 0.7 × (1 − 0.1), …), and
 * positions run up to a million $SIM, where a micro-unit is 1e-12 of the value.
 */
const stopAt = (stopLossPct: number) => ({ stopLossPct, takeProfitPct: null });
const takeAt = (takeProfitPct: number) => ({ stopLossPct: null, takeProfitPct });
const holding = (heldMicro: number, costMicro: number) => ({ freeMicro: heldMicro, heldMicro, costMicro });

/** Thresholds in whole percent, as owners set them (0.01 … 0.99), the float-unfriendly ones included. */
const arbPct = fc.integer({ min: 1, max: 99 }).map((n) => n / 100);
/** A position: shares held (micro-shares, whole share steps) and its cost (micro-units), up to 1,000,000 $SIM. */
const arbPosition = fc
  .record({
    heldMicro: fc.integer({ min: 1, max: 2_000_000_000_000 / 10 }).map((n) => n * 10),
    entry: fc.double({ min: 0.01, max: 0.99, noNaN: true }),
  })
  .map(({ heldMicro, entry }) => ({ heldMicro, costMicro: Math.max(1, Math.round(heldMicro * entry)) }))
  .filter((p) => p.costMicro <= 1e12);

describe('position monitor boundaries #unit', () => {
  it('when the price is exactly 0.7 × (1 − X) on shares bought at 0.7, then the stop at X fires (X = 0.1, 0.2, 0.3, 0.5)', () => {
    for (const x of [0.1, 0.2, 0.3, 0.5])
      for (const shares of [100, 3, 1234.56789, 999_999]) {
        const heldMicro = Math.round(shares * 1e6);
        const costMicro = Math.round(heldMicro * 0.7);
        const price = 0.7 * (1 - x);
        assert.equal(
          crossed(stopAt(x), holding(heldMicro, costMicro), price),
          'stop_loss',
          `${shares} shares at 0.7, price ${price}, stop ${x}`,
        );
      }
  });

  it('when the price is exactly 0.3 × (1 + X) on shares bought at 0.3, then the take-profit at X fires (X = 0.1, 0.2, 0.3, 1.0)', () => {
    for (const x of [0.1, 0.2, 0.3, 1.0])
      for (const shares of [100, 3, 1234.56789, 999_999]) {
        const heldMicro = Math.round(shares * 1e6);
        const costMicro = Math.round(heldMicro * 0.3);
        const price = 0.3 * (1 + x);
        assert.equal(
          crossed(takeAt(x), holding(heldMicro, costMicro), price),
          'take_profit',
          `${shares} shares at 0.3, price ${price}, take-profit ${x}`,
        );
      }
  });

  it('when a position is worth exactly (1 − X) × its cost, then the stop fires; one micro-unit more, it does not; one less, it does', () => {
    let floatAbove = 0;
    fc.assert(
      fc.property(arbPosition, arbPct, ({ heldMicro, costMicro }, x) => {
        const h = holding(heldMicro, costMicro);
        // The price at which the position is worth exactly (1 − X) × cost, as float arithmetic gives it.
        const exactly = (costMicro * (1 - x)) / heldMicro;
        if (heldMicro * exactly > costMicro * (1 - x)) floatAbove++;
        const why = `${heldMicro} micro-shares costing ${costMicro}, stop ${x}`;
        assert.equal(crossed(stopAt(x), h, exactly), 'stop_loss', `at exactly -X: ${why}`);
        assert.equal(
          crossed(stopAt(x), h, (costMicro * (1 - x) + 1) / heldMicro),
          null,
          `a micro-unit above: ${why}`,
        );
        assert.equal(
          crossed(stopAt(x), h, (costMicro * (1 - x) - 1) / heldMicro),
          'stop_loss',
          `below: ${why}`,
        );
      }),
      { numRuns: 2000 },
    );
    // The float product landed above the exact boundary in some cases: the tolerance is what fires them.
    assert.ok(floatAbove > 0, 'some boundaries are a float hair above');
  });

  it('when a position is worth exactly (1 + X) × its cost, then the take-profit fires; one micro-unit less, it does not; one more, it does', () => {
    let floatBelow = 0;
    fc.assert(
      fc.property(arbPosition, arbPct, ({ heldMicro, costMicro }, x) => {
        const h = holding(heldMicro, costMicro);
        const exactly = (costMicro * (1 + x)) / heldMicro;
        if (heldMicro * exactly < costMicro * (1 + x)) floatBelow++;
        const why = `${heldMicro} micro-shares costing ${costMicro}, take-profit ${x}`;
        assert.equal(crossed(takeAt(x), h, exactly), 'take_profit', `at exactly +X: ${why}`);
        assert.equal(
          crossed(takeAt(x), h, (costMicro * (1 + x) - 1) / heldMicro),
          null,
          `a micro-unit below: ${why}`,
        );
        assert.equal(
          crossed(takeAt(x), h, (costMicro * (1 + x) + 1) / heldMicro),
          'take_profit',
          `above: ${why}`,
        );
      }),
      { numRuns: 2000 },
    );
    assert.ok(floatBelow > 0, 'some boundaries are a float hair below');
  });

  it('when the position has no cost or no shares, then nothing fires', () => {
    assert.equal(crossed(stopAt(0.5), holding(0, 100), 0.01), null);
    assert.equal(crossed(stopAt(0.5), holding(100, 0), 0.01), null);
  });
});
