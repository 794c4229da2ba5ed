/**
 * What a shock is, in one place for the live detector (detect-shocks.ts) and the past drops read
 * from the recorded tapes (drop-history.ts): the price of one outcome falling at least `dropCents`
 * below its highest of the last `windowMs`. A YES price rising by as much is the NO outcome's drop.
 */

export interface PricePoint {
  atMs: number;
  /** The YES outcome's price. */
  yes: number;
}

export interface DropRule {
  dropCents: number;
  windowMs: number;
}

export interface Drop {
  /** The outcome whose price fell. */
  side: 'yes' | 'no';
  /** Its highest price in the window before. */
  prePrice: number;
  /** Its price when the drop was seen. */
  price: number;
  atMs: number;
}

/** Prices to a hundredth of a cent: float noise never makes or breaks a drop. */
const cents = (p: number) => Math.round(p * 10_000) / 100;

/**
 * The drop `point` makes against the window before it, given that window's highest and lowest YES
 * price, or null. When both outcomes qualify (a window that swung both ways), the larger fall wins.
 */
export function dropAgainst(
  windowHigh: number,
  windowLow: number,
  point: PricePoint,
  rule: DropRule,
): Drop | null {
  const yesFall = cents(windowHigh) - cents(point.yes);
  const noFall = cents(point.yes) - cents(windowLow);
  if (Math.max(yesFall, noFall) < rule.dropCents) return null;
  return yesFall >= noFall
    ? { side: 'yes', prePrice: windowHigh, price: point.yes, atMs: point.atMs }
    : { side: 'no', prePrice: 1 - windowLow, price: 1 - point.yes, atMs: point.atMs };
}

/** The window's extremes before `point` (points older than the window left out), or null when empty. */
export function windowRange(before: PricePoint[], point: PricePoint, windowMs: number) {
  let high = -Infinity;
  let low = Infinity;
  for (const p of before)
    if (p.atMs >= point.atMs - windowMs && p.atMs < point.atMs) {
      high = Math.max(high, p.yes);
      low = Math.min(low, p.yes);
    }
  return high === -Infinity ? null : { high, low };
}

export interface PastDrop extends Drop {
  /** How far the outcome fell below `prePrice` at the lowest within a window after the drop, in cents. */
  depthCents: number;
}

/**
 * The drops of one market's price series (in time order), each with its depth: the lowest price of
 * the dropped outcome from the drop to one window after it. After a drop the window starts afresh
 * (a drop is counted once, not at every point that stays low). Monotonic queues keep it linear.
 */
export function findDrops(series: PricePoint[], rule: DropRule): PastDrop[] {
  const drops: PastDrop[] = [];
  const highs: number[] = []; // indices, their prices decreasing
  const lows: number[] = []; // indices, their prices increasing
  let start = 0;
  for (let i = 0; i < series.length; i++) {
    const point = series[i]!;
    while (start < i && series[start]!.atMs < point.atMs - rule.windowMs) start++;
    while (highs.length && highs[0]! < start) highs.shift();
    while (lows.length && lows[0]! < start) lows.shift();
    const drop =
      highs.length && lows.length
        ? dropAgainst(series[highs[0]!]!.yes, series[lows[0]!]!.yes, point, rule)
        : null;
    if (drop) {
      drops.push({ ...drop, depthCents: depthAfter(series, i, drop, rule.windowMs) });
      start = i; // the drop's own point opens the next window
      highs.length = 0;
      lows.length = 0;
    }
    while (highs.length && series[highs.at(-1)!]!.yes <= point.yes) highs.pop();
    highs.push(i);
    while (lows.length && series[lows.at(-1)!]!.yes >= point.yes) lows.pop();
    lows.push(i);
  }
  return drops;
}

function depthAfter(series: PricePoint[], from: number, drop: Drop, windowMs: number): number {
  let lowest = drop.price;
  for (let j = from; j < series.length && series[j]!.atMs <= drop.atMs + windowMs; j++) {
    const own = drop.side === 'yes' ? series[j]!.yes : 1 - series[j]!.yes;
    lowest = Math.min(lowest, own);
  }
  return Math.round((drop.prePrice - lowest) * 1000) / 10;
}

/** The favoritism band of a pre-shock price (the skill's dimension 2; `moderate` is 0.75–0.85). */
export function favoritism(prePrice: number): 'heavy' | 'moderate' | 'slight' | 'balanced' | 'underdog' {
  if (prePrice >= 0.85) return 'heavy';
  if (prePrice >= 0.75) return 'moderate';
  if (prePrice >= 0.6) return 'slight';
  if (prePrice >= 0.4) return 'balanced';
  return 'underdog';
}

export const PERCENTILES = { p50: 0.5, p75: 0.75, p90: 0.9, p95: 0.95 } as const;
export type Depths = Record<keyof typeof PERCENTILES, number>;

/** Linear-interpolated percentiles of `values` (at least one), in cents to a tenth. */
export function depthPercentiles(values: number[]): Depths {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => {
    const pos = q * (sorted.length - 1);
    const lo = Math.floor(pos);
    const hi = Math.min(sorted.length - 1, lo + 1);
    return Math.round((sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo)) * 10) / 10;
  };
  return { p50: at(0.5), p75: at(0.75), p90: at(0.9), p95: at(0.95) };
}
