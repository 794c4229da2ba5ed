import type { AgentRecord } from '../agents/agent.model.js';
import { nameSkeleton } from '../agents/agent-name.js';
import type { Models } from '../models.js';
import type { PositionRecord } from '../positions/position.model.js';
import { fromMicro } from '../money.js';
import { chunks } from '../../util/chunks.js';
import { markMicro } from '../positions/position-views.js';
import { DEFAULT_LINK_WINDOW_HOURS, linkedAgents, unrankedPositionIds } from './linked-agents.js';
import { forgetBoardCopy, SDK_AGENTS_BOARD } from './board-ranks.js';
import { POOL_VENUE } from '../venues/venue-id.js';

/** What marking a position reads of it. */
const MARKED_FIELDS = {
  agentId: 1,
  marketId: 1,
  venue: 1,
  status: 1,
  sharesYesMicro: 1,
  sharesNoMicro: 1,
  reservedYesMicro: 1,
  reservedNoMicro: 1,
  costYesMicro: 1,
  costNoMicro: 1,
  realizedPnlMicro: 1,
  openedAt: 1,
  lastTradeAt: 1,
} as const;

/** What marking a position reads of its market. */
const MARKED_MARKET_FIELDS = {
  currentPrice: 1,
  externalPriceYes: 1,
  status: 1,
  outcome: 1,
  payoutYesMicro: 1,
} as const;

/** Positions per batch of the re-mark's read, and markets per read of their prices. */
const MARK_BATCH = 1000;

/** A position with its unrealised P&L at current prices (markedPositions). */
export interface Marked {
  p: Pick<PositionRecord, '_id' | keyof typeof MARKED_FIELDS>;
  unrealizedMicro: number;
}

/** The filter of a venue's positions that are not settled: the ones a re-mark marks. */
export const openOn = (venue: string) => ({ venue, status: { $ne: 'settled' } });

/**
 * Positions with their unrealised P&L: open shares marked at current prices (imported markets at the
 * venue's price, so an agent cannot pump its own mark on the sim book) less their cost; settled
 * positions have none. Positions of a market not found are left out.
 */
export async function markedPositions(models: Models, filter: Record<string, unknown>): Promise<Marked[]> {
  // Every open position of a venue once a minute, in the process that may also serve the API: read
  // in batches so that decoding them interleaves with requests instead of holding the event loop
  // (one 16 MB batch of 100,000 positions held it for ~2.5 s), and their markets in bounded reads.
  const positions = await models.Position.find(filter, MARKED_FIELDS).batchSize(MARK_BATCH).lean();
  const byId = new Map<string, Parameters<typeof markMicro>[1]>();
  for (const ids of chunks([...new Set(positions.map((p) => p.marketId))], MARK_BATCH))
    for (const m of await models.Market.find({ _id: { $in: ids } }, MARKED_MARKET_FIELDS).lean())
      byId.set(m._id, m);
  return positions.flatMap((p) => {
    const m = byId.get(p.marketId);
    if (!m) return [];
    const unrealizedMicro =
      p.status === 'settled' ? 0 : markMicro(p, m, true) - p.costYesMicro - p.costNoMicro;
    return [{ p, unrealizedMicro }];
  });
}

/**
 * Re-marks every agent that has traded: realised sim P&L (a counter kept on write by the ledger) plus
 * its open sim positions marked at current prices (the venue's price for imported markets), less what
 * it made on markets it traded together with a linked agent (linked-agents.ts), which is kept apart in
 * linkedPnlMicro. In $SIM only: real-venue positions are in dollars and rank on the venue boards
 * (venue-boards.ts), never added to $SIM here. Run by a scheduled job; reads then cost one indexed page
 * whatever the number of agents.
 */
export async function remarkLeaderboard(
  models: Models,
  now: Date,
  linkWindowHours = DEFAULT_LINK_WINDOW_HOURS,
  /** Sim's open positions marked already (the job marks them once for this board and sim's venue board). */
  markedOpenSim?: Marked[],
): Promise<{ agents: number; changed: number }> {
  const unrealized = new Map<string, number>();
  for (const { p, unrealizedMicro } of markedOpenSim ?? (await markedPositions(models, openOn(POOL_VENUE))))
    unrealized.set(p.agentId, (unrealized.get(p.agentId) ?? 0) + unrealizedMicro);
  const agents = await models.Agent.find(
    { simTradesCount: { $gt: 0 } },
    {
      realizedPnlMicro: 1,
      leaderboardPnlMicro: 1,
      linkedPnlMicro: 1,
      claimedBy: 1,
      registeredFrom: 1,
    },
  )
    .batchSize(MARK_BATCH)
    .lean();
  const linkedPnl = await linkedPnlByAgent(models, agents, linkWindowHours);
  const ops = agents
    .map((a) => {
      const linked = Math.round(linkedPnl.get(a._id) ?? 0);
      const total = a.realizedPnlMicro + Math.round(unrealized.get(a._id) ?? 0);
      return { a, ranked: total - linked, linked };
    })
    .filter(({ a, ranked, linked }) => ranked !== a.leaderboardPnlMicro || linked !== (a.linkedPnlMicro ?? 0))
    .map(({ a, ranked, linked }) => ({
      updateOne: {
        filter: { _id: a._id },
        update: { $set: { leaderboardPnlMicro: ranked, linkedPnlMicro: linked, markedAt: now } },
      },
    }));
  if (ops.length) await models.Agent.bulkWrite(ops, { ordered: false });
  await models.LeaderboardMeta.updateOne(
    { _id: SDK_AGENTS_BOARD },
    { $set: { totalAgents: agents.length, markedAt: now } },
    { upsert: true },
  );
  forgetBoardCopy(models);
  return { agents: agents.length, changed: ops.length };
}

/** Per agent, the P&L (realised and marked) of its sim positions that do not rank; only linked agents have any. */
async function linkedPnlByAgent(
  models: Models,
  agents: Parameters<typeof linkedAgents>[0],
  linkWindowHours: number,
): Promise<Map<string, number>> {
  const linked = linkedAgents(agents);
  const pnl = new Map<string, number>();
  if (!linked.size) return pnl;
  const positions = await markedPositions(models, {
    agentId: { $in: [...linked.keys()] },
    venue: POOL_VENUE,
  });
  const unranked = unrankedPositionIds(
    positions.map(({ p }) => p),
    linked,
    linkWindowHours * 3600_000,
  );
  for (const { p, unrealizedMicro } of positions)
    if (unranked.has(p._id))
      pnl.set(p.agentId, (pnl.get(p.agentId) ?? 0) + p.realizedPnlMicro + unrealizedMicro);
  return pnl;
}

/** Wins over decided outcomes, 0 to 1 with 4 decimals (0 when nothing is decided yet). */
export const winRate = (wins: number, losses: number) =>
  wins + losses ? Math.round((wins / (wins + losses)) * 1e4) / 1e4 : 0;

const nameKeyOf = (a: Pick<AgentRecord, 'name' | 'nameKey'>) => a.nameKey ?? nameSkeleton(a.name);

/**
 * The names a board shows: an agent's own, unless an earlier agent holds a name that looks the same
 * (same lookalike key: "Alpha", "ALPHA", "Αlpha" with a Greek alpha); then the name carries the
 * start of the agent's id, so that nobody passes for an agent that made its name first. Names are
 * not unique at registration (keyless clients register with names like "trading-bot").
 */
export async function shownNames(models: Models, agents: Pick<AgentRecord, '_id' | 'name' | 'nameKey'>[]) {
  const keys = [...new Set(agents.map(nameKeyOf))];
  const firsts: { _id: string; first: string }[] = await models.Agent.aggregate([
    { $match: { nameKey: { $in: keys } } },
    { $sort: { nameTakenAt: 1, createdAt: 1, _id: 1 } },
    { $group: { _id: '$nameKey', first: { $first: '$_id' } } },
  ]);
  const holder = new Map(firsts.map((f) => [f._id, f.first]));
  return new Map(
    agents.map((a) => {
      const first = holder.get(nameKeyOf(a));
      return [a._id, first === undefined || first === a._id ? a.name : `${a.name} (${a._id.slice(0, 8)})`];
    }),
  );
}

/** A leaderboard entry (spec §2.5), under the name the board shows (shownNames). */
export function leaderboardEntry(a: AgentRecord, rank: number, shownName = a.name) {
  return {
    rank,
    id: a._id,
    agent_id: a._id,
    name: shownName,
    status: a.status,
    description: a.description ?? null,
    owner_wallet_address: null,
    created_at: (a as { createdAt?: Date }).createdAt?.toISOString() ?? null,
    last_trade_at: a.lastTradeAt ? a.lastTradeAt.toISOString() : null,
    total_pnl: fromMicro(a.leaderboardPnlMicro),
    pnl_percent: a.startingBalanceMicro
      ? Math.round((a.leaderboardPnlMicro / a.startingBalanceMicro) * 1e4) / 100
      : 0,
    win_rate: winRate(a.winCount, a.lossCount),
    trades_count: a.simTradesCount,
    win_count: a.winCount,
    loss_count: a.lossCount,
    is_claimed: Boolean(a.claimedBy),
    /** P&L made on markets traded together with a linked agent: shown, never ranked (linked-agents.ts). */
    unranked_pnl: fromMicro(a.linkedPnlMicro ?? 0),
  };
}

/** One page of the SDK-agent (sim) leaderboard: agents with at least one sim trade, best marked P&L first. */
export async function sdkAgentsBoard(models: Models, limit: number, offset: number) {
  const [agents, meta] = await Promise.all([
    models.Agent.find({ simTradesCount: { $gt: 0 } })
      .sort({ leaderboardPnlMicro: -1, _id: 1 })
      .skip(offset)
      .limit(limit)
      .lean(),
    models.LeaderboardMeta.findById(SDK_AGENTS_BOARD).lean(),
  ]);
  const names = await shownNames(models, agents);
  return {
    entries: agents.map((a, i) => leaderboardEntry(a, offset + i + 1, names.get(a._id))),
    total_agents: meta?.totalAgents ?? 0,
    marked_at: meta?.markedAt ? meta.markedAt.toISOString() : null,
  };
}

export const TRADER_TYPES = ['all', 'agent', 'human'] as const;
export type TraderType = (typeof TRADER_TYPES)[number];
