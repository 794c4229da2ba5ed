import type { AgentRecord } from '../agents/agent.model.js';
import type { Models } from '../models.js';
import { positionView } from './position-views.js';

/**
 * GET /api/sdk/positions/expiring (client-contract §6.1): the agent's open positions in markets still
 * trading that resolve within `hours` from `now`, soonest first, each a positions row plus
 * `hours_to_resolution`.
 */
export async function expiringPositions(models: Models, agent: AgentRecord, hours: number, now: Date) {
  const until = new Date(now.getTime() + hours * 3600_000);
  const positions = await models.Position.find({ agentId: agent._id, status: 'open' }).lean();
  const markets = await models.Market.find({
    _id: { $in: [...new Set(positions.map((p) => p.marketId))] },
    status: 'active',
    resolvesAt: { $gte: now, $lte: until },
  }).lean();
  const byId = new Map(markets.map((m) => [m._id, m]));
  const rows = positions.flatMap((p) => {
    const m = byId.get(p.marketId);
    if (!m?.resolvesAt || p.sharesYesMicro + p.sharesNoMicro + p.reservedYesMicro + p.reservedNoMicro <= 0)
      return [];
    const left = (m.resolvesAt.getTime() - now.getTime()) / 3600_000;
    return [{ ...positionView(p, m, agent.balanceMicro), hours_to_resolution: Math.round(left * 100) / 100 }];
  });
  rows.sort((a, b) => a.hours_to_resolution - b.hours_to_resolution);
  return { positions: rows, count: rows.length, hours, agent_id: agent._id };
}
