import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  CENT_MICRO,
  meetsMinSize,
  mirrorAmountMicro,
  mirrorSharesMicro,
} from '../../shared/domains/reactor/mirror-amount.js';

/**
 * The mirror of a watched wallet's fill (shared/domains/reactor/mirror-amount.ts): the whale's
 * shares × mirror_fraction, capped at max_size shares, × the whale's price, rounded down to a whole
 * cent; a fill under the agent's min_size or its watchlist entry's makes no signal. The daily cap
 * (Redis, daily-cap.ts) is exercised by test/integration/reactor.test.ts.
 */
const M = 1_000_000;
const rule = (mirrorFraction: number, maxShares: number) => ({
  mirrorFraction,
  maxSharesMicro: maxShares * M,
});

describe('reactor mirror amount #unit', () => {
  it('when a whale buys 200 shares at 0.29 and the agent mirrors 10 % up to 100 shares, then it mirrors 20 shares for 5.80', () => {
    assert.equal(mirrorSharesMicro(200 * M, rule(0.1, 100)), 20 * M);
    // 20 × 0.29 = 5.8 exactly, which binary floating point reaches as 5.7999…: not a cent lost.
    assert.equal(mirrorAmountMicro(200 * M, 0.29, rule(0.1, 100)), 5_800_000);
  });

  it('when the whale’s shares × mirror_fraction pass max_size, then max_size shares are mirrored', () => {
    assert.equal(mirrorSharesMicro(5_000 * M, rule(0.5, 100)), 100 * M);
    assert.equal(mirrorAmountMicro(5_000 * M, 0.6, rule(0.5, 100)), 60 * M);
  });

  it('when the mirror is worth less than a cent, then its amount is 0 (no trade-ready signal)', () => {
    assert.equal(mirrorAmountMicro(1 * M, 0.5, rule(0.01, 100)), 0);
  });

  it('when amounts are drawn at random, then each is whole cents, never above shares × price nor a cent below it', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000_000 * M }),
        fc.integer({ min: 1, max: 999 }).map((c) => c / 1000),
        fc.integer({ min: 1, max: 100 }).map((p) => p / 100),
        fc.integer({ min: 1, max: 100_000 }),
        (whaleMicro, price, fraction, maxShares) => {
          const r = rule(fraction, maxShares);
          const shares = mirrorSharesMicro(whaleMicro, r);
          const amount = mirrorAmountMicro(whaleMicro, price, r);
          assert.ok(shares <= r.maxSharesMicro && shares <= whaleMicro * fraction);
          assert.equal(amount % CENT_MICRO, 0);
          const exact = shares * price;
          assert.ok(amount <= exact + 1e-3, `${amount} ≤ ${exact}`);
          assert.ok(amount > exact - CENT_MICRO - 1e-3, `${amount} within a cent of ${exact}`);
        },
      ),
    );
  });

  it('when a fill is under the agent’s min_size or under its watchlist entry’s, then it makes no signal; at either bound it does', () => {
    assert.equal(meetsMinSize(49 * M, 50 * M, 0), false);
    assert.equal(meetsMinSize(50 * M, 50 * M, 0), true);
    assert.equal(meetsMinSize(99 * M, 50 * M, 100 * M), false);
    assert.equal(meetsMinSize(100 * M, 50 * M, 100 * M), true);
    assert.equal(meetsMinSize(0, 0, 0), true);
  });
});
