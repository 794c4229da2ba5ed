import assert from 'node:assert/strict';
import {
  backtestCopies,
  COPY_STAKE_USD,
  type CopyFill,
  type CopyMarket,
} from '../../shared/domains/copytrading/copy-leaders/copy-backtest.js';

const t = (minutes: number) => new Date(Date.UTC(2026, 5, 1) + minutes * 60_000);
const leg = (over: Partial<CopyFill>): CopyFill => ({
  wallet: 'w',
  marketId: 'm',
  at: t(0),
  action: 'buy',
  outcome: 'yes',
  price: 0.5,
  shares: 10,
  ...over,
});
const markets = (m: Partial<CopyMarket> = {}) =>
  new Map<string, CopyMarket>([['m', { category: 'sports', feeRateBps: 0, payoutYes: null, ...m }]]);
const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-9, `${a} ≈ ${b}`);

describe('copy backtest #unit', () => {
  it('when the leader sells half of what it bought, then the copy sells half of its copy at the sale price less half a tick', () => {
    const [r] = backtestCopies(
      [leg({ price: 0.5, shares: 100 }), leg({ at: t(60), action: 'sell', price: 0.7, shares: 50 })],
      markets(),
    );
    const bought = COPY_STAKE_USD / 0.505;
    // Half sold at 0.695, the other half marked at the last price, the sale's 0.70.
    close(r!.pnlUsd, (bought / 2) * 0.695 + (bought / 2) * 0.7 - COPY_STAKE_USD);
    assert.equal(r!.tradeCount, 2);
  });

  it('when the market moved against the copy within the delay, then the copy pays the moved price', () => {
    const fills = [
      leg({ price: 0.4 }),
      leg({ wallet: 'other', at: new Date(t(0).getTime() + 20_000), price: 0.5 }),
    ];
    const r = backtestCopies(fills, markets({ payoutYes: 1 })).find((x) => x.wallet === 'w')!;
    const shares = COPY_STAKE_USD / 0.505;
    close(r.pnlUsd, shares - COPY_STAKE_USD);
    close(r.slippageCostRatePct, (100 * 0.105) / 0.4);
  });

  it('when the market charges a taker fee, then every copy pays fee_rate_bps × min(p, 1 − p) a share', () => {
    const [r] = backtestCopies([leg({ price: 0.2 })], markets({ feeRateBps: 1000, payoutYes: 0 }));
    const shares = COPY_STAKE_USD / 0.205;
    close(r!.pnlUsd, -COPY_STAKE_USD - 0.1 * 0.205 * shares);
  });

  it('when the leader sells what it bought before the window, then nothing is copied; a NO buy is marked at 1 − the YES price', () => {
    const [r] = backtestCopies([leg({ action: 'sell', shares: 30 })], markets());
    close(r!.pnlUsd, 0);
    const [no] = backtestCopies([leg({ outcome: 'no', price: 0.25 })], markets({ payoutYes: 0.4 }));
    close(no!.pnlUsd, (COPY_STAKE_USD / 0.255) * 0.6 - COPY_STAKE_USD);
  });

  it('when a market is out of scope or unknown, then its trades are not counted', () => {
    const fills = [leg({}), leg({ marketId: 'unknown' })];
    assert.deepEqual(
      backtestCopies(fills, markets(), (m) => m.category === 'politics'),
      [],
    );
    assert.equal(backtestCopies(fills, markets())[0]!.tradeCount, 1);
  });
});
