import { fromMicro } from '../money.js';
import type { MarketRecord } from '../markets/market.model.js';
import { conditionRefFields } from '../venues/venue-ref-fields.js';
import type { PositionRecord } from './position.model.js';
import { holderView } from './holder.js';
import { isRedeemable, redeemableSide } from './redeemable.js';
import { yesPayoutMicro } from '../markets/resolution.js';
import { isPoolVenue } from '../venues/venue-id.js';
import { venueMoney } from '../venues/venue-conventions.js';

/**
 * Value of a position at the market's current YES price (resolved markets: what a YES share pays). With
 * `external`, imported markets are marked at the venue's price, so an agent cannot pump its own
 * mark on the sim book (used by the leaderboard).
 */
export function markMicro(
  p: Pick<PositionRecord, 'sharesYesMicro' | 'sharesNoMicro' | 'reservedYesMicro' | 'reservedNoMicro'>,
  m: Pick<MarketRecord, 'currentPrice' | 'status' | 'outcome'> & {
    externalPriceYes?: number | null;
    payoutYesMicro?: number | null;
  },
  external = false,
): number {
  const payoutYes = yesPayoutMicro(m);
  const yes =
    payoutYes !== null
      ? fromMicro(payoutYes)
      : external && m.externalPriceYes != null
        ? m.externalPriceYes
        : m.currentPrice;
  return Math.round(
    (p.sharesYesMicro + p.reservedYesMicro) * yes + (p.sharesNoMicro + p.reservedNoMicro) * (1 - yes),
  );
}

/**
 * What a position is worth at its own venue: real (polymarket, kalshi) positions at the venue's
 * price, sim ones at the sim book; resolved markets at the outcome either way.
 */
export const venueMarkMicro = (
  p: Pick<
    PositionRecord,
    'venue' | 'sharesYesMicro' | 'sharesNoMicro' | 'reservedYesMicro' | 'reservedNoMicro'
  >,
  m: Pick<MarketRecord, 'currentPrice' | 'status' | 'outcome'> & {
    externalPriceYes?: number | null;
    payoutYesMicro?: number | null;
  },
) => markMicro(p, m, !isPoolVenue(p.venue));

/** `active` while the market trades, `resolved` once it resolved, `settled`/`closed` after. */
export function positionStatus(p: PositionRecord, m: Pick<MarketRecord, 'status'>): string {
  if (p.status === 'settled') return 'settled';
  if (p.status === 'closed') return 'closed';
  return m.status === 'resolved' ? 'resolved' : 'active';
}

/** A row of GET /api/sdk/positions (client-contract §6.1). */
export function positionView(p: PositionRecord, m: MarketRecord, balanceMicro: number) {
  const costMicro = p.costYesMicro + p.costNoMicro;
  const valueMicro = p.status === 'settled' ? 0 : venueMarkMicro(p, m);
  const shares = p.sharesYesMicro + p.sharesNoMicro;
  const unrealized = p.status === 'settled' ? 0 : valueMicro - costMicro;
  const redeemable = isRedeemable(p, m);
  return {
    market_id: p.marketId,
    question: m.question,
    venue: p.venue,
    currency: venueMoney(p.venue).unit,
    shares_yes: fromMicro(p.sharesYesMicro),
    shares_no: fromMicro(p.sharesNoMicro),
    side:
      p.sharesYesMicro >= p.sharesNoMicro
        ? p.sharesYesMicro > 0
          ? 'yes'
          : p.sharesNoMicro > 0
            ? 'no'
            : null
        : 'no',
    cost_basis: fromMicro(costMicro),
    avg_cost: shares > 0 ? Math.round((costMicro / shares) * 1e6) / 1e6 : null,
    current_price: Math.round(m.currentPrice * 1e6) / 1e6,
    current_value: fromMicro(valueMicro),
    unrealized_pnl: fromMicro(unrealized),
    realized_pnl: fromMicro(p.realizedPnlMicro),
    pnl: fromMicro(unrealized + p.realizedPnlMicro),
    status: positionStatus(p, m),
    market_status: m.status,
    outcome: m.outcome,
    resolves_at: m.resolvesAt ? m.resolvesAt.toISOString() : null,
    resolved_at: m.resolvedAt ? m.resolvedAt.toISOString() : null,
    payout: fromMicro(p.payoutMicro),
    sources: p.sources,
    sim_balance: isPoolVenue(p.venue) ? fromMicro(balanceMicro) : null,
    redeemable,
    redeemable_side: redeemable ? redeemableSide(p, m) : null,
    ...conditionRefFields(m.venueRef),
    holder_address: holderView(p),
    opened_at: p.openedAt ? p.openedAt.toISOString() : null,
    last_trade_at: p.lastTradeAt ? p.lastTradeAt.toISOString() : null,
  };
}
export type PositionView = ReturnType<typeof positionView>;
