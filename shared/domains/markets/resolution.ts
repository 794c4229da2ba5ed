import { MICRO } from '../money.js';
import type { MarketRecord } from './market.model.js';

/**
 * A market's final result as what each share pays: YES wins (a YES share pays 1, a NO share 0),
 * NO wins, or neither does and the YES share pays `payoutYesMicro` and the NO share the rest: the
 * 50-50 (void) resolution of Polymarket, payout vector [1,1] (polymarket.md §10: each token
 * redeems 0.5), or a Kalshi `scalar` result (kalshi.md §4: YES pays `settlement_value_dollars`, NO
 * 1 minus that). `outcome` is null exactly when neither side wins.
 */
export interface Resolution {
  outcome: boolean | null;
  /** What one YES share pays, in micro-units (0 to MICRO). A NO share pays MICRO minus this. */
  payoutYesMicro: number;
}

/** YES or NO won: the winning share pays 1, the other 0. */
export const decided = (outcome: boolean): Resolution => ({ outcome, payoutYesMicro: outcome ? MICRO : 0 });

/** The 50-50 (void) resolution: every share, YES or NO, pays 0.5. */
export const VOID_RESOLUTION: Resolution = { outcome: null, payoutYesMicro: MICRO / 2 };

/**
 * The resolution a YES payout stands for: 1 and 0 are a decided outcome, anything between is a
 * void or scalar one. Refuses what no share can pay (outside 0..1, or finer than a micro-unit).
 */
export function resolutionPaying(payoutYesMicro: number): Resolution {
  if (!Number.isInteger(payoutYesMicro) || payoutYesMicro < 0 || payoutYesMicro > MICRO)
    throw new RangeError(`a YES share cannot pay ${payoutYesMicro} micro-units`);
  if (payoutYesMicro === MICRO) return decided(true);
  if (payoutYesMicro === 0) return decided(false);
  return { outcome: null, payoutYesMicro };
}

type Resolved = Pick<MarketRecord, 'status' | 'outcome'> & { payoutYesMicro?: number | null };

/**
 * What one YES share of the market pays, in micro-units; null while the market is not resolved.
 * Markets resolved before the payout was recorded carry only the outcome (YES 1, NO 0).
 */
export function yesPayoutMicro(m: Resolved): number | null {
  if (m.status !== 'resolved') return null;
  if (m.outcome !== null) return m.outcome ? MICRO : 0;
  return m.payoutYesMicro ?? null;
}

/** What one share of `side` pays, in micro-units; null while the market is not resolved. */
export function sidePayoutMicro(m: Resolved, side: 'yes' | 'no'): number | null {
  const yes = yesPayoutMicro(m);
  if (yes === null) return null;
  return side === 'yes' ? yes : MICRO - yes;
}

/** shares × price, both in micro-units, rounded down to the micro-unit (exact for any size). */
const payoutOf = (sharesMicro: number, priceMicro: number) =>
  Number((BigInt(sharesMicro) * BigInt(priceMicro)) / BigInt(MICRO));

/**
 * What a holding pays at a resolution with `payoutYesMicro`, in micro-units. Each side is rounded
 * down to the micro-unit, as the CTF rounds a redemption (amount × numerator / denominator, in
 * integers): a void resolution pays half of an odd number of micro-shares without the half micro.
 */
export function holdingPayoutMicro(
  p: { sharesYesMicro: number; sharesNoMicro: number },
  payoutYesMicro: number,
): number {
  return payoutOf(p.sharesYesMicro, payoutYesMicro) + payoutOf(p.sharesNoMicro, MICRO - payoutYesMicro);
}

/** How a resolution reads to a person: `YES`, `NO`, `void (50-50)` or the scalar split. */
export function resolutionLabel(m: Resolved): string {
  const yes = yesPayoutMicro(m);
  if (yes === null) return 'unresolved';
  if (yes === MICRO) return 'YES';
  if (yes === 0) return 'NO';
  if (yes === MICRO / 2) return 'void (50-50)';
  return `YES ${yes / MICRO} / NO ${(MICRO - yes) / MICRO}`;
}
