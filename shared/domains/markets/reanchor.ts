import { clampPrice, price, type LmsrState } from './lmsr.js';

/**
 * Re-anchoring an imported market's sim book to its venue's price (architecture.md §5), by moving
 * the book's anchor (`q0Yes`), never the fills. The book's log-odds are the venue's plus the agents'
 * impact since the last anchoring:
 *   - a move of the venue is followed in full at once, so a stale sim price cannot be sniped;
 *   - the agents' impact (book minus the venue price it was anchored to) halves every `halfLifeMs`,
 *     so a trade's price impact stays for a while and then fades.
 * Being a logged book event, it is ordered against every fill, so a dry run quotes exactly what a
 * live trade fills at the same state.
 */
export interface Reanchor {
  /** The shift of the YES anchor, in shares. */
  deltaQ0Yes: number;
  priceBefore: number;
  priceAfter: number;
}

const logit = (p: number) => {
  const c = clampPrice(p);
  return Math.log(c / (1 - c));
};

/**
 * @param anchoredTo the venue YES price the book was anchored to last (null: never, so the whole
 *   gap to the venue counts as impact and fades)
 */
export function reanchor(
  state: LmsrState,
  venueYes: number,
  anchoredTo: number | null,
  elapsedMs: number,
  halfLifeMs: number,
): Reanchor {
  const target = logit(venueYes);
  const previous = anchoredTo === null ? target : logit(anchoredTo);
  const current = (state.qYes - state.qNo) / state.b;
  const keep = Math.pow(0.5, Math.max(0, elapsedMs) / halfLifeMs);
  const next = target + (current - previous) * keep;
  const deltaQ0Yes = state.b * (next - current);
  return {
    deltaQ0Yes,
    priceBefore: price(state, 'yes'),
    priceAfter: price({ ...state, qYes: state.qYes + deltaQ0Yes }, 'yes'),
  };
}
