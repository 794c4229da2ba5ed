import type { AgentRecord } from '../agents/agent.model.js';
import type { Models } from '../models.js';
import { fromMicro } from '../money.js';
import { markMicro } from '../positions/position-views.js';

export const SDK_AGENTS_BOARD = 'sdk-agents';

/**
 * Re-marks every agent that has traded: realised P&L (a counter kept on write by the ledger) plus its
 * open positions marked at current prices (the venue's price for imported markets). Run by a
 * scheduled job; reads then cost one indexed page whatever the number of agents.
 */
export async function remarkLeaderboard(
  models: Models,
  now: Date,
): Promise<{ agents: number; changed: number }> {
  const positions = await models.Position.find(
    { status: { $ne: 'settled' } },
    {
      agentId: 1,
      marketId: 1,
      sharesYesMicro: 1,
      sharesNoMicro: 1,
      reservedYesMicro: 1,
      reservedNoMicro: 1,
      costYesMicro: 1,
      costNoMicro: 1,
    },
  ).lean();
  const markets = await models.Market.find(
    { _id: { $in: [...new Set(positions.map((p) => p.marketId))] } },
    { currentPrice: 1, externalPriceYes: 1, status: 1, outcome: 1 },
  ).lean();
  const byId = new Map(markets.map((m) => [m._id, m]));
  const unrealized = new Map<string, number>();
  for (const p of positions) {
    const m = byId.get(p.marketId);
    if (!m) continue;
    const u = markMicro(p, m, true) - p.costYesMicro - p.costNoMicro;
    unrealized.set(p.agentId, (unrealized.get(p.agentId) ?? 0) + u);
  }
  const agents = await models.Agent.find(
    { tradesCount: { $gt: 0 } },
    { realizedPnlMicro: 1, leaderboardPnlMicro: 1 },
  ).lean();
  const ops = agents
    .map((a) => ({ a, total: a.realizedPnlMicro + Math.round(unrealized.get(a._id) ?? 0) }))
    .filter(({ a, total }) => total !== a.leaderboardPnlMicro)
    .map(({ a, total }) => ({
      updateOne: { filter: { _id: a._id }, update: { $set: { leaderboardPnlMicro: total, markedAt: now } } },
    }));
  if (ops.length) await models.Agent.bulkWrite(ops, { ordered: false });
  await models.LeaderboardMeta.updateOne(
    { _id: SDK_AGENTS_BOARD },
    { $set: { totalAgents: agents.length, markedAt: now } },
    { upsert: true },
  );
  return { agents: agents.length, changed: ops.length };
}

/** A leaderboard entry (spec §2.5). */
export function leaderboardEntry(a: AgentRecord, rank: number) {
  const decided = a.winCount + a.lossCount;
  return {
    rank,
    id: a._id,
    agent_id: a._id,
    name: a.name,
    status: a.status,
    description: a.description ?? null,
    owner_wallet_address: null,
    created_at: (a as { createdAt?: Date }).createdAt?.toISOString() ?? null,
    last_trade_at: a.lastTradeAt ? a.lastTradeAt.toISOString() : null,
    total_pnl: fromMicro(a.leaderboardPnlMicro),
    pnl_percent: a.startingBalanceMicro
      ? Math.round((a.leaderboardPnlMicro / a.startingBalanceMicro) * 1e4) / 100
      : 0,
    win_rate: decided ? Math.round((a.winCount / decided) * 1e4) / 1e4 : 0,
    trades_count: a.tradesCount,
    win_count: a.winCount,
    loss_count: a.lossCount,
    is_claimed: Boolean(a.claimedBy),
  };
}

/** One page of the SDK-agent leaderboard: agents with at least one trade, best marked P&L first. */
export async function sdkAgentsBoard(models: Models, limit: number, offset: number) {
  const [agents, meta] = await Promise.all([
    models.Agent.find({ tradesCount: { $gt: 0 } })
      .sort({ leaderboardPnlMicro: -1, _id: 1 })
      .skip(offset)
      .limit(limit)
      .lean(),
    models.LeaderboardMeta.findById(SDK_AGENTS_BOARD).lean(),
  ]);
  return {
    entries: agents.map((a, i) => leaderboardEntry(a, offset + i + 1)),
    total_agents: meta?.totalAgents ?? 0,
    marked_at: meta?.markedAt ? meta.markedAt.toISOString() : null,
  };
}

/** An agent's place on the board: 1 + the number of agents ahead of it (an indexed count). */
export async function rankOf(
  models: Models,
  agent: Pick<AgentRecord, 'tradesCount' | 'leaderboardPnlMicro'>,
): Promise<number | null> {
  if (agent.tradesCount === 0) return null;
  return (
    1 +
    (await models.Agent.countDocuments({
      tradesCount: { $gt: 0 },
      leaderboardPnlMicro: { $gt: agent.leaderboardPnlMicro },
    }))
  );
}
