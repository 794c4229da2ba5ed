import type { MarketRecord } from '../markets/market.model.js';
import type { PositionRecord } from './position.model.js';

/** Shares of the winning outcome (micro): what a redemption of a resolved market pays, in pUSD micro. */
export const winningSharesMicro = (
  p: Pick<PositionRecord, 'sharesYesMicro' | 'sharesNoMicro'>,
  outcome: boolean,
) => (outcome ? p.sharesYesMicro : p.sharesNoMicro);

/**
 * A real-venue position that a redemption would pay: unsettled, on a resolved market, holding
 * winning shares (Polymarket: `/api/sdk/redeem`; Kalshi: a sell quote of the winning contracts,
 * which DFlow redeems at $1). Losing shares redeem for 0, so they are not offered for redemption.
 */
export function isRedeemable(
  p: Pick<PositionRecord, 'venue' | 'status' | 'sharesYesMicro' | 'sharesNoMicro'>,
  m: Pick<MarketRecord, 'status' | 'outcome'>,
): boolean {
  return (
    p.venue !== 'sim' &&
    p.status !== 'settled' &&
    m.status === 'resolved' &&
    m.outcome !== null &&
    winningSharesMicro(p, m.outcome) > 0
  );
}
