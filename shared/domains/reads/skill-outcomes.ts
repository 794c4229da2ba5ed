import type { Models } from '../models.js';
import { fromMicro } from '../money.js';
import { venueMarkMicro } from '../positions/position-views.js';
import { positionId, type PositionRecord } from '../positions/position.model.js';
import { FILLED, winRate } from './leaderboard.js';

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
  const span = { ...(since ? { $gte: since } : {}), ...(until ? { $lt: until } : {}) };
  const from = since || until ? { createdAt: span } : {};
  const inSpan = (at: Date | null | undefined) =>
    (!since || (at != null && at >= since)) && (!until || (at != null && at < until));
  const [trades, skillMarkets] = await Promise.all([
    models.Trade.countDocuments({ agentId, skillSlug: skill, ...FILLED, ...from }),
    models.Trade.distinct('marketId', { agentId, skillSlug: skill, action: 'buy', ...FILLED, ...from }),
  ]);
  // The opening buy of each position in those markets, whoever's skill it carried.
  const buys = await models.Trade.find(
    { agentId, marketId: { $in: skillMarkets }, action: 'buy', ...FILLED },
    { marketId: 1, venue: 1, skillSlug: 1, createdAt: 1 },
  )
    .sort({ createdAt: 1, _id: 1 })
    .lean();
  const opened = new Map<string, (typeof buys)[number]>();
  for (const b of buys) {
    const key = positionId(agentId, b.marketId, b.venue);
    if (!opened.has(key)) opened.set(key, b);
  }
  const ids = [...opened].filter(([, b]) => b.skillSlug === skill && inSpan(b.createdAt)).map(([id]) => id);
  const positions = await models.Position.find({ _id: { $in: ids } }).lean();
  const markets = await models.Market.find(
    { _id: { $in: [...new Set(positions.map((p) => p.marketId))] } },
    { currentPrice: 1, externalPriceYes: 1, status: 1, outcome: 1 },
  ).lean();
  const byId = new Map(markets.map((m) => [m._id, m]));

  let realized = 0;
  let unrealized = 0;
  let settledPnl = 0;
  const count = { wins: 0, losses: 0, settledWins: 0, settledLosses: 0, open: 0 };
  // How each decided outcome is known: market resolution, the sim book's own fills, or fills
  // booked from a real venue (Polymarket, Kalshi) that the service mirrors.
  const confidence = { settlement: 0, native: 0, mirror: 0 };
  const resolvedMarkets = new Set<string>();
  for (const p of positions) {
    const m = byId.get(p.marketId);
    realized += p.realizedPnlMicro;
    if (p.status === 'open') {
      count.open += 1;
      if (m) unrealized += venueMarkMicro(p, m) - p.costYesMicro - p.costNoMicro;
      continue;
    }
    const won = p.realizedPnlMicro > 0;
    count[won ? 'wins' : 'losses'] += 1;
    if (p.status === 'settled') {
      settledPnl += p.realizedPnlMicro;
      count[won ? 'settledWins' : 'settledLosses'] += 1;
      resolvedMarkets.add(p.marketId);
      confidence.settlement += 1;
    } else confidence[isSim(p) ? 'native' : 'mirror'] += 1;
  }
  return {
    agent_id: agentId,
    skill,
    since: since ? since.toISOString() : null,
    trades,
    positions: positions.length,
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

const isSim = (p: Pick<PositionRecord, 'venue'>) => p.venue === 'sim';
