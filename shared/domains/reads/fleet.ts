import { actingUserOf, type AgentRecord } from '../agents/agent.model.js';
import { userAgentView } from '../agents/manage-agents.js';
import { utcDay } from '../limits/counters.js';
import type { Models } from '../models.js';
import { fromMicro, toMicro } from '../money.js';
import { FILLED } from '../trading/trade.model.js';

/**
 * `GET /api/sdk/fleet/summary`: the agents of the caller's human (every agent claimed by the user
 * the caller acts for), or the caller alone while unclaimed or released. Each row is the owner's view of an
 * agent (GET /api/sdk/agents) plus its filled trades since 00:00 UTC; the totals sum the rows.
 */
export async function fleetSummary(
  models: Models,
  caller: Pick<AgentRecord, '_id' | 'claimedBy' | 'status'>,
  now: Date,
) {
  const owner = actingUserOf(caller);
  const [agents, user] = await Promise.all([
    models.Agent.find(owner ? { claimedBy: owner } : { _id: caller._id })
      .sort({ createdAt: 1 })
      .lean(),
    owner ? models.User.findById(owner, { tier: 1 }).lean() : null,
  ]);
  const today: { _id: string; n: number }[] = await models.Trade.aggregate([
    {
      $match: {
        agentId: { $in: agents.map((a) => a._id) },
        createdAt: { $gte: new Date(utcDay(now)) },
        ...FILLED,
      },
    },
    { $group: { _id: '$agentId', n: { $sum: 1 } } },
  ]);
  const tradesToday = new Map(today.map((t) => [t._id, t.n]));
  const rows = agents.map((a) => ({ ...userAgentView(a), trades_today: tradesToday.get(a._id) ?? 0 }));
  // Summed in micro-units, as the rows were derived from them: no float drift across many agents.
  const sum = (pick: (r: (typeof rows)[number]) => number) =>
    fromMicro(rows.reduce((s, r) => s + toMicro(pick(r)), 0));
  return {
    owner_id: owner,
    tier: user?.tier ?? 'free',
    agents_total: rows.length,
    agents_active: rows.filter((r) => r.status !== 'suspended').length,
    total_balance: sum((r) => r.balance),
    total_pnl: sum((r) => r.total_pnl),
    realized_pnl: sum((r) => r.realized_pnl),
    trades_today: rows.reduce((s, r) => s + r.trades_today, 0),
    agents: rows,
  };
}
