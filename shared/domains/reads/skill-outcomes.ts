import type { Models } from '../models.js';
import { fromMicro } from '../money.js';
import { venueMarkMicro } from '../positions/position-views.js';
import { positionId, type PositionRecord } from '../positions/position.model.js';
import { FILLED } from '../trading/trade.model.js';
import { winRate } from './leaderboard.js';
import { isPoolVenue } from '../venues/venue-id.js';

/**
 * Attribution rule (GET /api/sdk/outcomes): a position (agent, market, venue) belongs to the skill
 * whose `skill_slug` was on the buy that opened it — the position's first filled buy. Each position
 * thus counts for exactly one skill, and every micro-unit of its P&L (ledger realised P&L from sells
 * and settlement, plus the open shares marked at the venue's price) counts once.
 * A position is decided once it is `closed` (sold out) or `settled` (market resolved): a win when its
 * realised P&L is positive, a loss otherwise (the settlement's rule for the agent's win/loss counters).
 * `since` keeps the skill's trades made from then on and the positions they opened from then on;
 * `until` (the automaton's cycle spans) ends that window the same way.
 */
export async function skillOutcomes(
  models: Models,
  agentId: string,
  skill: string,
  since: Date | null,
  until: Date | null = null,
) {
  const [trades, opened] = await Promise.all([
    models.Trade.countDocuments({ agentId, skillSlug: skill, ...FILLED, ...createdIn(since, until) }),
    skillPositions(models, agentId, skill, since, until),
  ]);

  let realized = 0;
  let unrealized = 0;
  let settledPnl = 0;
  const count = { wins: 0, losses: 0, settledWins: 0, settledLosses: 0, open: 0 };
  // How each decided outcome is known: market resolution, the sim book's own fills, or fills
  // booked from a real venue (Polymarket, Kalshi) that the service mirrors.
  const confidence = { settlement: 0, native: 0, mirror: 0 };
  const resolvedMarkets = new Set<string>();
  for (const { position: p, market: m } of opened) {
    realized += p.realizedPnlMicro;
    if (p.status === 'open') {
      count.open += 1;
      unrealized += positionPnlMicro(p, m) - p.realizedPnlMicro;
      continue;
    }
    const won = p.realizedPnlMicro > 0;
    count[won ? 'wins' : 'losses'] += 1;
    if (p.status === 'settled') {
      settledPnl += p.realizedPnlMicro;
      count[won ? 'settledWins' : 'settledLosses'] += 1;
      resolvedMarkets.add(p.marketId);
      confidence.settlement += 1;
    } else confidence[isPoolVenue(p.venue) ? 'native' : 'mirror'] += 1;
  }
  return {
    agent_id: agentId,
    skill,
    since: since ? since.toISOString() : null,
    trades,
    positions: opened.length,
    open_positions: count.open,
    pnl: fromMicro(realized + unrealized),
    realized_pnl: fromMicro(realized),
    unrealized_pnl: fromMicro(unrealized),
    wins: count.wins,
    losses: count.losses,
    win_rate: winRate(count.wins, count.losses),
    settled_pnl: fromMicro(settledPnl),
    resolved_markets: resolvedMarkets.size,
    settled_wins: count.settledWins,
    settled_losses: count.settledLosses,
    confidence_breakdown: confidence,
  };
}

/** A `createdAt` filter for [since, until), either end open. */
const createdIn = (since: Date | null, until: Date | null) =>
  since || until
    ? { createdAt: { ...(since ? { $gte: since } : {}), ...(until ? { $lt: until } : {}) } }
    : {};

/**
 * The positions the skill opened (attribution rule above), each with its market and the buy that
 * opened it (whose `signal_data` research backtests re-score). `since` and `until` keep those opened
 * in [since, until).
 */
export async function skillPositions(
  models: Models,
  agentId: string,
  skill: string,
  since: Date | null,
  until: Date | null = null,
) {
  const skillMarkets = await models.Trade.distinct('marketId', {
    agentId,
    skillSlug: skill,
    action: 'buy',
    ...FILLED,
    ...createdIn(since, until),
  });
  // The opening buy of each position in those markets, whoever's skill it carried.
  const buys = await models.Trade.find(
    { agentId, marketId: { $in: skillMarkets }, action: 'buy', ...FILLED },
    { marketId: 1, venue: 1, skillSlug: 1, signalData: 1, createdAt: 1 },
  )
    .sort({ createdAt: 1, _id: 1 })
    .lean();
  const opened = new Map<string, (typeof buys)[number]>();
  for (const b of buys) {
    const key = positionId(agentId, b.marketId, b.venue);
    if (!opened.has(key)) opened.set(key, b);
  }
  const inSpan = (at: Date | null | undefined) =>
    (!since || (at != null && at >= since)) && (!until || (at != null && at < until));
  const own = [...opened].filter(([, b]) => b.skillSlug === skill && inSpan(b.createdAt));
  const positions = await models.Position.find({ _id: { $in: own.map(([id]) => id) } }).lean();
  const markets = await models.Market.find(
    { _id: { $in: [...new Set(positions.map((p) => p.marketId))] } },
    { currentPrice: 1, externalPriceYes: 1, status: 1, outcome: 1, payoutYesMicro: 1 },
  ).lean();
  const marketOf = new Map(markets.map((m) => [m._id, m]));
  return positions.map((position) => ({
    position,
    market: marketOf.get(position.marketId) ?? null,
    openingBuy: opened.get(position._id)!,
  }));
}

/**
 * A position's P&L: its realised P&L (sells and settlement, from the ledger) plus, while it is open,
 * its shares marked at the venue's price less their cost (no market known: realised only).
 */
export function positionPnlMicro(p: PositionRecord, m: MarketMark | null): number {
  if (p.status !== 'open' || !m) return p.realizedPnlMicro;
  return p.realizedPnlMicro + venueMarkMicro(p, m) - p.costYesMicro - p.costNoMicro;
}
type MarketMark = Parameters<typeof venueMarkMicro>[1];
