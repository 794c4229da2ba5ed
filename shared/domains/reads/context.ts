import { notFound } from '../../infra/errors.js';
import type { AgentRecord } from '../agents/agent.model.js';
import { priceAtMinute } from '../markets/history.js';
import type { MarketRecord } from '../markets/market.model.js';
import { marketView } from '../markets/market-view.js';
import type { Models } from '../models.js';
import { fromMicro, MICRO } from '../money.js';
import { venueMarkMicro } from '../positions/position-views.js';
import { positionId, type PositionRecord } from '../positions/position.model.js';
import { bookState } from '../markets/sim-book.js';
import { price, sharesForSpend, withShares, type Outcome } from '../markets/lmsr.js';
import { isServiceMarketId } from '../venues/external-ids.js';
import { isPoolVenue, listedVenues, POOL_VENUE, type VenueId, venueIds } from '../venues/venue-id.js';
import { resolutionLabel } from '../markets/resolution.js';

const r6 = (n: number) => Math.round(n * 1e6) / 1e6;
/**
 * A ratio as a fraction (0.0117 for 1.17 %), to 4 places: `pnl_pct` and `slippage_pct` are read by
 * the published skills as fractions (compared with 0.15, printed with `:.1%`), whatever their name.
 */
const fraction = (n: number) => Math.round(n * 1e4) / 1e4;

/** Spend sizes the slippage block quotes (reference/amm-and-peers.md §2.6). */
export const SLIPPAGE_SIZES = [10, 50, 100, 250, 500];
/** The minimum edge worth trading before adjusting for time to resolution. */
export const BASE_THRESHOLD = 0.05;

export function humanDuration(seconds: number): string {
  const abs = Math.abs(seconds);
  const units: [number, string][] = [
    [86400, 'day'],
    [3600, 'hour'],
    [60, 'minute'],
  ];
  for (const [size, name] of units) {
    if (abs >= size) {
      const n = Math.floor(abs / size);
      const text = `${n} ${name}${n === 1 ? '' : 's'}`;
      return seconds < 0 ? `${text} ago` : text;
    }
  }
  return seconds < 0 ? 'just now' : 'less than a minute';
}

/** The spec's position object (§2.3) for one venue, or null when the agent holds nothing there. */
export function contextPosition(p: PositionRecord | null, m: MarketRecord, now: Date) {
  if (
    !p ||
    p.status === 'settled' ||
    p.sharesYesMicro + p.sharesNoMicro + p.reservedYesMicro + p.reservedNoMicro === 0
  )
    return null;
  const side = p.sharesYesMicro >= p.sharesNoMicro ? 'yes' : 'no';
  const shares = side === 'yes' ? p.sharesYesMicro : p.sharesNoMicro;
  const cost = p.costYesMicro + p.costNoMicro;
  const value = venueMarkMicro(p, m);
  return {
    has_position: true,
    side,
    shares: fromMicro(shares),
    shares_yes: fromMicro(p.sharesYesMicro),
    shares_no: fromMicro(p.sharesNoMicro),
    avg_cost_basis: shares > 0 ? r6((side === 'yes' ? p.costYesMicro : p.costNoMicro) / shares) : 0,
    cost_basis: fromMicro(cost),
    current_value: fromMicro(value),
    unrealized_pnl: fromMicro(value - cost),
    pnl_pct: cost > 0 ? fraction((value - cost) / cost) : 0,
    position_age_hours: p.openedAt
      ? Math.round(((now.getTime() - p.openedAt.getTime()) / 3600_000) * 100) / 100
      : 0,
    venue: p.venue,
  };
}

const EMPTY_POSITION = {
  has_position: false,
  side: null,
  shares: 0,
  avg_cost_basis: null,
  current_value: 0,
  unrealized_pnl: 0,
  pnl_pct: 0,
  position_age_hours: null,
};

/** Long YES (buy yes / sell no) or long NO (buy no / sell yes). */
const direction = (t: { action: string; side: string }) =>
  (t.action === 'buy') === (t.side === 'yes') ? 'yes' : 'no';

function discipline(trades: { action: string; side: string; createdAt?: Date }[], now: Date) {
  const recent = trades
    .filter((t) => t.createdAt && now.getTime() - t.createdAt.getTime() <= 24 * 3600_000)
    .reverse();
  let changes = 0;
  for (let i = 1; i < recent.length; i++) if (direction(recent[i]!) !== direction(recent[i - 1]!)) changes++;
  const last = trades[0];
  const level: 'none' | 'mild' | 'severe' = changes >= 3 ? 'severe' : changes >= 1 ? 'mild' : 'none';
  return {
    last_action: last ? `${last.action}_${last.side}` : null,
    last_action_at: last?.createdAt ? last.createdAt.toISOString() : null,
    direction_changes_24h: changes,
    flip_flop_warning:
      level === 'severe'
        ? `You changed direction ${changes} times on this market in 24 h; each flip pays the spread and price impact twice. Stop and re-check your thesis.`
        : level === 'mild'
          ? `You changed direction ${changes} time${changes === 1 ? '' : 's'} on this market in 24 h.`
          : null,
    warning_level: level,
  };
}

function slippage(m: MarketRecord) {
  const state = bookState(m);
  const estimates = (['yes', 'no'] as Outcome[]).flatMap((side) => {
    const p0 = price(state, side);
    return SLIPPAGE_SIZES.map((amount) => {
      const shares = sharesForSpend(state, side, amount);
      const avg = amount / shares;
      const after = price(withShares(state, side, shares), side);
      return {
        side,
        amount_usd: amount,
        shares: r6(shares),
        avg_price: r6(avg),
        slippage_pct: fraction(avg / p0 - 1),
        price_after: r6(after),
        price_impact: r6(after - p0),
      };
    });
  });
  return { venue: POOL_VENUE, spread_pct: 0, liquidity: m.book.b, estimates };
}

type Recommendation = 'TRADE' | 'HOLD' | 'SKIP';

/**
 * Whether the market can be traded at all on the venue asked (any venue for `all`): active, and sim-
 * tradeable on sim or its order book open on the market's own venue.
 */
function tradeable(m: MarketRecord, venue: 'all' | VenueId): boolean {
  if (m.status !== 'active') return false;
  const onSim = m.simTradeable && !m.analyticsOnly;
  const onVenue = !isPoolVenue(m.importSource) && m.isOrderbookOpen;
  if (venue === 'all') return onSim || onVenue;
  return isPoolVenue(venue) ? onSim : venue === m.importSource && onVenue;
}

/**
 * Minimum edge, scaled up for long-dated markets (capital is tied up longer) and down near resolution.
 * `recommendation`: SKIP only for a market that must not be traded (resolved, closed, not tradeable
 * on the venue) — the published skills read SKIP as "resolved or invalid" and drop the market for good;
 * TRADE when the edge clears the threshold; HOLD otherwise (no `my_probability`, or a small edge).
 */
function edge(m: MarketRecord, myProbability: number | undefined, canTrade: boolean, now: Date) {
  const days = m.resolvesAt ? Math.max(0, (m.resolvesAt.getTime() - now.getTime()) / 86400_000) : 30;
  const timeFactor = Math.round((days < 1 ? 0.8 : 1 + Math.min(1, days / 180)) * 1000) / 1000;
  const threshold = r6(BASE_THRESHOLD * timeFactor);
  const base = { suggested_threshold: threshold, base_threshold: BASE_THRESHOLD, time_factor: timeFactor };
  if (myProbability === undefined) {
    return {
      ...base,
      user_probability: null,
      user_edge: null,
      recommended_side: null,
      recommendation: (canTrade ? 'HOLD' : 'SKIP') as Recommendation,
      note: 'Pass my_probability (0 to 1) for an edge and a recommendation.',
    };
  }
  const yes = m.currentPrice;
  const side: Outcome = myProbability >= yes ? 'yes' : 'no';
  const userEdge = r6(side === 'yes' ? myProbability - yes : yes - myProbability);
  const recommendation: Recommendation = !canTrade ? 'SKIP' : userEdge >= threshold ? 'TRADE' : 'HOLD';
  return {
    ...base,
    user_probability: myProbability,
    user_edge: userEdge,
    recommended_side: side,
    recommendation,
  };
}

/**
 * `GET /api/sdk/context/{market_id}` (spec §2.3, client-contract §5.7): everything an agent checks
 * before trading one market, in one call.
 */
export async function marketContext(
  models: Models,
  agent: AgentRecord,
  marketId: string,
  opts: {
    venue: 'all' | VenueId;
    myProbability?: number;
    baseUrl: string;
    claimUrl: string | null;
    now: Date;
  },
) {
  const m = isServiceMarketId(marketId) ? await models.Market.findById(marketId).lean() : null;
  if (!m) throw notFound('Market', 'Use the service market_id (a UUID) from GET /api/sdk/markets.');
  const { now } = opts;
  const [positions, trades, price1h, price24h] = await Promise.all([
    models.Position.find({ _id: { $in: venueIds().map((v) => positionId(agent._id, m._id, v)) } }).lean(),
    models.Trade.find({ agentId: agent._id, marketId: m._id, status: 'filled' })
      .sort({ createdAt: -1 })
      .limit(50)
      .lean(),
    priceAtMinute(models, m, new Date(now.getTime() - 3600_000)),
    priceAtMinute(models, m, new Date(now.getTime() - 24 * 3600_000)),
  ]);
  const byVenue = Object.fromEntries(
    listedVenues(venueIds(), (v) => positions.some((p) => p.venue === v)).map((v) => [
      v,
      contextPosition(positions.find((p) => p.venue === v) ?? null, m, now),
    ]),
  ) as Record<VenueId, ReturnType<typeof contextPosition>>;
  const flat =
    opts.venue === 'all'
      ? (Object.values(byVenue).find((p) => p !== null) ?? null)
      : (byVenue[opts.venue] ?? null);
  const view = marketView(m, opts.baseUrl, now);
  const secondsLeft = view.seconds_to_resolution;
  const disc = discipline(trades, now);

  const warnings: string[] = [];
  if (m.status === 'resolved')
    warnings.push(`Market is resolved (${resolutionLabel(m)}); it no longer trades.`);
  else if (secondsLeft !== null && secondsLeft < 0)
    warnings.push('Resolution time has passed; the market may resolve at any moment.');
  else if (secondsLeft !== null && secondsLeft < 3600)
    warnings.push(`Market resolves in ${humanDuration(secondsLeft)}.`);
  if (disc.flip_flop_warning) warnings.push(disc.flip_flop_warning);
  const valueMicro = (flat?.current_value ?? 0) * MICRO;
  if (valueMicro > 0.25 * (agent.balanceMicro + valueMicro))
    warnings.push('This position is more than a quarter of your sim holdings.');
  if (Math.abs(m.currentPrice - price24h) >= 0.1)
    warnings.push(`Price moved ${Math.round((m.currentPrice - price24h) * 100)} points in 24 h.`);

  return {
    market: {
      ...view,
      price_1h_ago: price1h,
      price_24h_ago: price24h,
      time_to_resolution: secondsLeft === null ? null : humanDuration(secondsLeft),
      ai_consensus: null,
      external_price: m.externalPriceYes,
      // The venue's quoted spread on imported markets; the sim LMSR quotes one price (its cost is
      // the price impact under `slippage`).
      spread: m.externalSpread ?? 0,
      spread_cents: Math.round((m.externalSpread ?? 0) * 10_000) / 100,
      fee_note: m.feeRateBps
        ? `Trades pay ${m.feeRateBps} bps.`
        : 'No trading fee on sim; the LMSR price impact is the only cost (see slippage).',
    },
    position: flat ?? { ...EMPTY_POSITION },
    positions: byVenue,
    discipline: disc,
    slippage: slippage(m),
    edge: edge(m, opts.myProbability, tradeable(m, opts.venue), now),
    recent_trades: trades.slice(0, 5).map((t) => ({
      trade_id: t._id,
      action: `${t.action}_${t.side}`,
      side: t.side,
      shares: fromMicro(t.fill?.sharesMicro ?? 0),
      cost: fromMicro(t.fill?.amountMicro ?? 0),
      price: t.fill && t.fill.sharesMicro ? r6(t.fill.amountMicro / t.fill.sharesMicro) : null,
      timestamp: t.createdAt ? t.createdAt.toISOString() : null,
      reasoning: t.reasoning,
      source: t.source,
    })),
    warnings,
    claim_url: opts.claimUrl,
    agent_id: agent._id,
  };
}
