import type { MarketRecord } from '../markets/market.model.js';
import type { PositionRecord } from '../positions/position.model.js';
import type { ExitReason, PositionMonitorRecord } from './position-monitor.model.js';

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
  const yes = venue !== 'sim' && m.externalPriceYes != null ? m.externalPriceYes : m.currentPrice;
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

/** Which threshold the P&L crossed, if any: the stop first (a position cannot be at both). */
export function crossed(
  monitor: Pick<PositionMonitorRecord, 'stopLossPct' | 'takeProfitPct'>,
  pnl: number | null,
): ExitReason | null {
  if (pnl === null) return null;
  // A hair of tolerance: a stop at exactly -50% fires at -50%, whatever the float rounding.
  if (monitor.stopLossPct !== null && pnl <= -monitor.stopLossPct + 1e-9) return 'stop_loss';
  if (monitor.takeProfitPct !== null && pnl >= monitor.takeProfitPct - 1e-9) return 'take_profit';
  return null;
}
