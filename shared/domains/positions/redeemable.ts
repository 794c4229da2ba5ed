import type { MarketRecord } from '../markets/market.model.js';
import { holdingPayoutMicro, sidePayoutMicro, yesPayoutMicro } from '../markets/resolution.js';
import type { PositionRecord } from './position.model.js';
import { isPoolVenue } from '../venues/venue-id.js';

type ResolvedMarket = Pick<MarketRecord, 'status' | 'outcome'> & { payoutYesMicro?: number | null };

/**
 * What a redemption of the position pays at the market's resolution (micro pUSD / USDC): its
 * winning shares, or at a void (50-50) resolution half of every share; 0 while unresolved.
 */
export function redemptionPayoutMicro(
  p: Pick<PositionRecord, 'sharesYesMicro' | 'sharesNoMicro'>,
  m: ResolvedMarket,
): number {
  const yes = yesPayoutMicro(m);
  return yes === null ? 0 : holdingPayoutMicro(p, yes);
}

/**
 * A real-venue position that a redemption would pay: unsettled, on a resolved market, holding
 * shares that pay something (the winning side, or either side of a void (50-50) or scalar
 * resolution). Polymarket: `/api/sdk/redeem`; Kalshi: a sell quote of the paying contracts, which
 * DFlow redeems at their payout. Shares that pay 0 are not offered for redemption.
 */
export function isRedeemable(
  p: Pick<PositionRecord, 'venue' | 'status' | 'sharesYesMicro' | 'sharesNoMicro'>,
  m: ResolvedMarket,
): boolean {
  return !isPoolVenue(p.venue) && p.status !== 'settled' && redemptionPayoutMicro(p, m) > 0;
}

/**
 * The side a redemption of the position is asked for (`redeemable_side`, which the official
 * client passes back to `/api/sdk/redeem`): the winning side, or at a void resolution the side
 * with more paying shares (the adapter redeems both sides either way). Null when nothing pays.
 */
export function redeemableSide(
  p: Pick<PositionRecord, 'sharesYesMicro' | 'sharesNoMicro'>,
  m: ResolvedMarket,
): 'yes' | 'no' | null {
  const value = (side: 'yes' | 'no') =>
    (side === 'yes' ? p.sharesYesMicro : p.sharesNoMicro) * (sidePayoutMicro(m, side) ?? 0);
  const [yes, no] = [value('yes'), value('no')];
  if (yes <= 0 && no <= 0) return null;
  return yes >= no ? 'yes' : 'no';
}
