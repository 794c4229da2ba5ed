import type { MarketRecord } from '../markets/market.model.js';
import type { PositionRecord } from './position.model.js';

/** Shares of the winning outcome (micro): what a redemption of a resolved market pays, in pUSD micro. */
export const winningSharesMicro = (
  p: Pick<PositionRecord, 'sharesYesMicro' | 'sharesNoMicro'>,
  outcome: boolean,
) => (outcome ? p.sharesYesMicro : p.sharesNoMicro);

/**
 * A Polymarket position that a redemption would pay: unsettled, on a resolved market, holding
 * winning shares. Losing shares redeem for 0, so they are not offered for redemption.
 */
export function isRedeemable(
  p: Pick<PositionRecord, 'venue' | 'status' | 'sharesYesMicro' | 'sharesNoMicro'>,
  m: Pick<MarketRecord, 'status' | 'outcome'>,
): boolean {
  return (
    p.venue === 'polymarket' &&
    p.status !== 'settled' &&
    m.status === 'resolved' &&
    m.outcome !== null &&
    winningSharesMicro(p, m.outcome) > 0
  );
}
