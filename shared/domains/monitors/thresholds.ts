import type { MarketRecord } from '../markets/market.model.js';
import type { PositionRecord } from '../positions/position.model.js';
import type { ExitReason, PositionMonitorRecord } from './position-monitor.model.js';
import { isPoolVenue } from '../venues/venue-id.js';

type PricedMarket = Pick<MarketRecord, 'currentPrice' | 'status'> & { externalPriceYes?: number | null };
type SideHolding = Pick<
  PositionRecord,
  'sharesYesMicro' | 'sharesNoMicro' | 'reservedYesMicro' | 'reservedNoMicro' | 'costYesMicro' | 'costNoMicro'
>;

/**
 * The side's price a monitored position is valued at: real-venue positions at the venue's price
 * (an agent cannot trip, or dodge, a real stop by moving the sim book), sim ones at the sim book.
 */
export function monitoredPrice(m: PricedMarket, venue: string, side: 'yes' | 'no'): number {
  const yes = !isPoolVenue(venue) && m.externalPriceYes != null ? m.externalPriceYes : m.currentPrice;
  return side === 'yes' ? yes : 1 - yes;
}

/** One side of a position: shares free to sell, shares held in all (sells in flight too), and their cost. */
export function sideHolding(p: SideHolding, side: 'yes' | 'no') {
  const free = side === 'yes' ? p.sharesYesMicro : p.sharesNoMicro;
  const reserved = side === 'yes' ? p.reservedYesMicro : p.reservedNoMicro;
  return {
    freeMicro: free,
    heldMicro: free + reserved,
    costMicro: side === 'yes' ? p.costYesMicro : p.costNoMicro,
  };
}

/** P&L of the side at `price` as a fraction of its cost (-0.5 = half the money lost); null without cost. */
export function pnlFraction(holding: ReturnType<typeof sideHolding>, price: number): number | null {
  if (holding.costMicro <= 0 || holding.heldMicro <= 0) return null;
  return (holding.heldMicro * price - holding.costMicro) / holding.costMicro;
}

/**
 * Half a micro-unit of value: more than the float rounding of shares × price (below 0.02 micro-units
 * up to 1e14 micro-units of value), less than the smallest step of money (one micro-unit).
 */
const HALF_MICRO = 0.5;

/**
 * Which threshold the side's value at `price` crossed, if any: the stop first (a position cannot be
 * at both). Compared in micro-units of value against (1 − stop) × cost and (1 + take) × cost, with
 * half a micro-unit of tolerance: a position that has lost exactly the stop's share fires, whatever
 * the float rounding; one worth a micro-unit more does not. A tolerance on the P&L fraction instead
 * would be several micro-units on a large position (1e-9 of 10,000 $SIM is 10).
 */
export function crossed(
  monitor: Pick<PositionMonitorRecord, 'stopLossPct' | 'takeProfitPct'>,
  holding: ReturnType<typeof sideHolding>,
  price: number,
): ExitReason | null {
  if (holding.costMicro <= 0 || holding.heldMicro <= 0) return null;
  const valueMicro = holding.heldMicro * price;
  if (
    monitor.stopLossPct !== null &&
    valueMicro <= holding.costMicro * (1 - monitor.stopLossPct) + HALF_MICRO
  )
    return 'stop_loss';
  if (
    monitor.takeProfitPct !== null &&
    valueMicro >= holding.costMicro * (1 + monitor.takeProfitPct) - HALF_MICRO
  )
    return 'take_profit';
  return null;
}
