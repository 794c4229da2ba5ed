/**
 * LMSR (Hanson's logarithmic market scoring rule) for a binary market, in pure functions.
 *
 * State: outstanding shares `qYes`, `qNo` and liquidity `b`. Cost `C(q) = b·ln(e^{qYes/b} + e^{qNo/b})`,
 * computed with log-sum-exp so large quantities never overflow. Trades use the closed forms for one
 * outcome at its current price p (they hold because only p enters):
 *   shares for a spend S     Δ(S) = b·ln(1 + (e^{S/b} − 1)/p)
 *   proceeds of selling Δ    R(Δ) = −b·ln(1 + p·(e^{−Δ/b} − 1))
 * evaluated in log space (ln p and ln(1 − p) from the log-odds) so that prices near 0 or 1 keep
 * full precision. See reference/amm-and-peers.md §2.1.
 */

export type Outcome = 'yes' | 'no';

export interface LmsrState {
  b: number;
  qYes: number;
  qNo: number;
}

/** Displayed and quoted prices never reach 0 or 1. */
export const PRICE_FLOOR = 0.001;
export const PRICE_CEIL = 0.999;

export const clampPrice = (p: number) => Math.min(PRICE_CEIL, Math.max(PRICE_FLOOR, p));

/** ln(1 + e^t) without overflow or cancellation. */
const softplus = (t: number) => Math.max(t, 0) + Math.log1p(Math.exp(-Math.abs(t)));
/** ln(e^a + e^b). */
const logAddExp = (a: number, b: number) => Math.max(a, b) + Math.log1p(Math.exp(-Math.abs(a - b)));

/** Log-odds of `side`: (q_side − q_other)/b. */
const logOdds = (s: LmsrState, side: Outcome) => (side === 'yes' ? s.qYes - s.qNo : s.qNo - s.qYes) / s.b;

/**
 * ln p and ln(1 − p) of `side`, each computed directly from the log-odds, so neither suffers the
 * cancellation of `1 − p` when p is close to 1.
 */
function logPrices(s: LmsrState, side: Outcome): { lnP: number; lnQ: number } {
  const d = logOdds(s, side);
  return { lnP: -softplus(-d), lnQ: -softplus(d) };
}

/** Unclamped price of `side` (exact: the YES and NO prices sum to 1). */
export function rawPrice(s: LmsrState, side: Outcome): number {
  return Math.exp(logPrices(s, side).lnP);
}

export const price = (s: LmsrState, side: Outcome) => clampPrice(rawPrice(s, side));

/** C(q) = b·logsumexp(q/b). */
export function cost(s: LmsrState): number {
  return s.b * logAddExp(s.qYes / s.b, s.qNo / s.b);
}

/** The state whose price of YES is `p` and whose cost is 0 (q_i = b·ln p_i). */
export function stateAt(b: number, pYes: number): LmsrState {
  return { b, qYes: b * Math.log(pYes), qNo: b * Math.log1p(-pYes) };
}

export function withShares(s: LmsrState, side: Outcome, delta: number): LmsrState {
  return side === 'yes' ? { ...s, qYes: s.qYes + delta } : { ...s, qNo: s.qNo + delta };
}

/** Shares of `side` that spending `spend` buys: b·(ln(e^{S/b} − (1 − p)) − ln p). */
export function sharesForSpend(s: LmsrState, side: Outcome, spend: number): number {
  if (spend <= 0) return 0;
  const { lnP, lnQ } = logPrices(s, side);
  const x = spend / s.b;
  return s.b * (x + Math.log1p(-Math.exp(lnQ - x)) - lnP);
}

/** What buying `shares` of `side` costs, C(q + Δ) − C(q) = b·ln((1 − p) + p·e^{Δ/b}). */
export function costOfShares(s: LmsrState, side: Outcome, shares: number): number {
  const { lnP, lnQ } = logPrices(s, side);
  return s.b * logAddExp(lnQ, lnP + shares / s.b);
}

/** What selling `shares` of `side` pays, C(q) − C(q − Δ) = −b·ln((1 − p) + p·e^{−Δ/b}). */
export function proceedsForShares(s: LmsrState, side: Outcome, shares: number): number {
  if (shares <= 0) return 0;
  const { lnP, lnQ } = logPrices(s, side);
  return -s.b * logAddExp(lnQ, lnP - shares / s.b);
}

/**
 * Shares of `side` to buy (positive) or sell (negative) that move its unclamped price to `target`:
 * buying Δ adds Δ/b to the side's log-odds, so Δ = b·(logit(target) − logit(p)).
 */
export function sharesToMove(s: LmsrState, side: Outcome, target: number): number {
  return s.b * (Math.log(target) - Math.log1p(-target) - logOdds(s, side));
}

/**
 * The largest sim buy, in $SIM (client-contract §4.5). Books are sized for it: one trade at the cap
 * moves a 50% market to at most 60%, so no single agent can push a price to an extreme at once.
 */
export const SIM_MAX_TRADE = 500;

/**
 * Liquidity such that spending `maxSpend` moves a 50% market to at most `maxPrice`:
 * b ≥ S / ln((1 − p)/(1 − p_t)). The default sizing keeps a trade at the sim cap under 60%.
 */
export function liquidityFor(maxSpend = SIM_MAX_TRADE, maxPrice = 0.6, from = 0.5): number {
  return Math.ceil(maxSpend / Math.log((1 - from) / (1 - maxPrice)));
}

export const DEFAULT_LIQUIDITY = liquidityFor();
