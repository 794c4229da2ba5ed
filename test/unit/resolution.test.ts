import assert from 'node:assert/strict';
import {
  decided,
  holdingPayoutMicro,
  resolutionLabel,
  resolutionPaying,
  sidePayoutMicro,
  VOID_RESOLUTION,
  yesPayoutMicro,
} from '../../shared/domains/markets/resolution.js';

describe('what a share pays at resolution', () => {
  it('a decided market pays the winning side 1 and the other 0; a void one 0.5 each, rounded down per side', () => {
    const p = { sharesYesMicro: 3_000_001, sharesNoMicro: 1_000_003 };
    assert.equal(holdingPayoutMicro(p, decided(true).payoutYesMicro), 3_000_001);
    assert.equal(holdingPayoutMicro(p, decided(false).payoutYesMicro), 1_000_003);
    assert.equal(holdingPayoutMicro(p, VOID_RESOLUTION.payoutYesMicro), 1_500_000 + 500_001);
    // A scalar result: YES 0.3, NO 0.7.
    assert.equal(holdingPayoutMicro(p, 300_000), 900_000 + 700_002);
  });

  it('stays exact for holdings far beyond 2^53 / 1e6 micro-shares', () => {
    const huge = { sharesYesMicro: 9_007_199_254_740_991, sharesNoMicro: 0 };
    assert.equal(holdingPayoutMicro(huge, 500_000), 4_503_599_627_370_495);
  });

  it('reads a market: null until resolved, the outcome for markets stored before the payout was, the payout otherwise', () => {
    assert.equal(yesPayoutMicro({ status: 'closed', outcome: null }), null);
    assert.equal(yesPayoutMicro({ status: 'resolved', outcome: true }), 1_000_000);
    assert.equal(yesPayoutMicro({ status: 'resolved', outcome: false, payoutYesMicro: null }), 0);
    assert.equal(yesPayoutMicro({ status: 'resolved', outcome: null, payoutYesMicro: 500_000 }), 500_000);
    assert.equal(
      sidePayoutMicro({ status: 'resolved', outcome: null, payoutYesMicro: 300_000 }, 'no'),
      700_000,
    );
    assert.equal(
      resolutionLabel({ status: 'resolved', outcome: null, payoutYesMicro: 500_000 }),
      'void (50-50)',
    );
    assert.equal(resolutionLabel({ status: 'resolved', outcome: false }), 'NO');
  });

  it('a payout of 1 or 0 is a decided outcome; nothing outside 0..1 or finer than a micro-unit is accepted', () => {
    assert.deepEqual(resolutionPaying(1_000_000), decided(true));
    assert.deepEqual(resolutionPaying(0), decided(false));
    assert.deepEqual(resolutionPaying(500_000), VOID_RESOLUTION);
    assert.throws(() => resolutionPaying(1_000_001), RangeError);
    assert.throws(() => resolutionPaying(-1), RangeError);
    assert.throws(() => resolutionPaying(0.5), RangeError);
  });
});
