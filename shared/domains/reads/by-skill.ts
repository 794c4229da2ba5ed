import type { MarketRecord } from '../markets/market.model.js';
import type { Models } from '../models.js';
import { positionId, type PositionRecord } from '../positions/position.model.js';
import { totalsByTag } from '../trading/reads.js';
import { FILLED } from '../trading/trade.model.js';
import { POOL_VENUE } from '../venues/venue-id.js';

const round6 = (n: number) => Math.round(n * 1e6) / 1e6;

/**
 * The briefing's `venues.sim.by_skill` (client-contract §6.5): per skill its sim trades named
 * (`skill_slug`), the positions it traded — open ones, their exposure, realised and unrealised P&L
 * and `pnl`, their sum — and its filled trades. simmer-briefing shows it as "By skill: divergence
 * +82 $SIM · copytrading -210 $SIM ← reassess". A position traded by several skills counts under each.
 */
export async function simBySkill(
  models: Models,
  agentId: string,
  simRows: { p: PositionRecord; m: MarketRecord }[],
) {
  // A find by the agent's trades index with a projection (an aggregation would scan on the development database).
  const trades = await models.Trade.find(
    { agentId, venue: POOL_VENUE, skillSlug: { $ne: null }, ...FILLED },
    { _id: 0, marketId: 1, skillSlug: 1 },
  ).lean();
  const counts = new Map<string, number>();
  const skillsOf = new Map<string, Set<string>>();
  for (const t of trades) {
    const slug = t.skillSlug!;
    counts.set(slug, (counts.get(slug) ?? 0) + 1);
    const id = positionId(agentId, t.marketId, POOL_VENUE);
    const skills = skillsOf.get(id) ?? new Set<string>();
    skillsOf.set(id, skills.add(slug));
  }
  const totals = totalsByTag(simRows, (p) => [...(skillsOf.get(p._id) ?? [])], counts);
  return Object.fromEntries(
    Object.entries(totals).map(([slug, t]) => [
      slug,
      { ...t, pnl: round6(t.realized_pnl + t.unrealized_pnl) },
    ]),
  );
}
