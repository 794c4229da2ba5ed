/**
 * The integers a sim fill moves, rounded in the house's favour (the house keeps the dust): a buy
 * pays its whole amount for the shares it buys rounded down to the share step; a sale gets its
 * proceeds rounded down to the micro-unit. So a fill never pays out more than the LMSR says, and
 * buy-then-sell never gains.
 *
 * The LMSR is evaluated in floats, a hair away from the exact value (measured against exact
 * arithmetic: below 1e-15 of the book's liquidity plus the value, in micro-units). Rounding down
 * after taking `floatGuard` off means a value that float evaluation cannot tell from an integer is
 * rounded down past it: the rare tie costs the agent one unit, never the house.
 */
import { MICRO } from '../money.js';
import { costOfShares, proceedsForShares, sharesForSpend, type LmsrState, type Outcome } from './lmsr.js';
import { SHARE_STEP_MICRO } from './sim-book.js';

/** 100 times the largest float error measured, in micro-units of `x` (shares or money). */
const floatGuard = (s: LmsrState, x: number) => 1e-13 * (Math.abs(x) + s.b * MICRO);

/** Shares (micro-shares, whole share steps) that spending `amountMicro` buys: rounded down. */
export function sharesBoughtMicro(s: LmsrState, side: Outcome, amountMicro: number): number {
  const exact = sharesForSpend(s, side, amountMicro / MICRO) * MICRO;
  const steps = Math.floor((exact - floatGuard(s, exact)) / SHARE_STEP_MICRO);
  return Math.max(0, steps) * SHARE_STEP_MICRO;
}

/** What selling `sharesMicro` pays (micro-units): rounded down. */
export function saleProceedsMicro(s: LmsrState, side: Outcome, sharesMicro: number): number {
  const exact = proceedsForShares(s, side, sharesMicro / MICRO) * MICRO;
  return Math.max(0, Math.floor(exact - floatGuard(s, exact)));
}

/**
 * What the house kept of a fill by rounding (micro-units, a fraction): a buy's amount less the LMSR
 * cost of the shares it got, a sale's LMSR proceeds less what it paid. In [0, 1) for a sale; for a
 * buy, below the cost of one more share step. Float, to within `floatGuard`.
 */
export function fillDustMicro(
  s: LmsrState,
  fill: { side: Outcome; action: 'buy' | 'sell'; sharesMicro: number; amountMicro: number },
): number {
  const shares = fill.sharesMicro / MICRO;
  return fill.action === 'buy'
    ? fill.amountMicro - costOfShares(s, fill.side, shares) * MICRO
    : proceedsForShares(s, fill.side, shares) * MICRO - fill.amountMicro;
}

/**
 * The most dust the rounding above can leave on a fill (micro-units): under one unit of money for a
 * sale, under the cost of one more share step for a buy, plus the `floatGuard` taken off before
 * rounding down (which grows with the book's liquidity: above 1e-3 of a unit from b = 10,000).
 */
export function maxFillDustMicro(
  s: LmsrState,
  fill: { side: Outcome; action: 'buy' | 'sell'; sharesMicro: number; amountMicro: number },
): number {
  if (fill.action === 'sell')
    return 1 + floatGuard(s, proceedsForShares(s, fill.side, fill.sharesMicro / MICRO) * MICRO);
  // The guard was taken off shares; a share costs at most one unit of money per unit.
  return nextStepCostMicro(s, fill.side, fill.sharesMicro) + floatGuard(s, fill.sharesMicro);
}

/** What one more share step would have cost a buy beyond its shares (the bound of a buy's dust), micro-units. */
export function nextStepCostMicro(s: LmsrState, side: Outcome, sharesMicro: number): number {
  const at = (micro: number) => costOfShares(s, side, micro / MICRO) * MICRO;
  return at(sharesMicro + SHARE_STEP_MICRO) - at(sharesMicro);
}
