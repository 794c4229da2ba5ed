import { clampPrice, price, type LmsrState } from './lmsr.js';

/**
 * Re-anchoring an imported market's sim book toward its venue's price (architecture.md §5): the
 * log-odds gap between the book and the venue halves every `halfLifeMs`, by moving the book's anchor
 * (`q0Yes`), never the fills. An agent's price impact therefore stays for a while and then fades,
 * and a stale sim price cannot be sniped for long. Being a logged book event, it is ordered against
 * every fill, so a dry run quotes exactly what a live trade fills at the same state.
 */
export interface Reanchor {
  /** The shift of the YES anchor, in shares. */
  deltaQ0Yes: number;
  priceBefore: number;
  priceAfter: number;
}

const logit = (p: number) => Math.log(p / (1 - p));

export function reanchor(
  state: LmsrState,
  externalYes: number,
  elapsedMs: number,
  halfLifeMs: number,
): Reanchor {
  const target = logit(clampPrice(externalYes));
  const current = (state.qYes - state.qNo) / state.b;
  const keep = Math.pow(0.5, Math.max(0, elapsedMs) / halfLifeMs);
  const next = target + (current - target) * keep;
  const deltaQ0Yes = state.b * (next - current);
  return {
    deltaQ0Yes,
    priceBefore: price(state, 'yes'),
    priceAfter: price({ ...state, qYes: state.qYes + deltaQ0Yes }, 'yes'),
  };
}
