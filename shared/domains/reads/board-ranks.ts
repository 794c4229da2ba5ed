import type { AgentRecord } from '../agents/agent.model.js';
import { LocalCache } from '../../infra/local-cache.js';
import type { Models } from '../models.js';
import { POOL_VENUE } from '../venues/venue-id.js';

/** The sim board's name in leaderboard_meta. */
export const SDK_AGENTS_BOARD = 'sdk-agents';

/**
 * How long one process serves ranks and the board's size from the same copy of the board before it
 * reads it again. A board's P&Ls change only when it is re-marked (once a minute; a re-mark in this
 * process drops the copy at once), so a copy lags another process's re-mark by about this long, and
 * misses the agents whose first trade came after it: they enter at P&L 0, so they move only the
 * agents below 0 down one place each.
 */
export const RANKS_MAX_AGE_MS = 5_000;
/**
 * An older copy is still served while one read replaces it in the background, so no request waits
 * for the board (a read of every ranked agent: ~0.3 s at 10,000 on the development database, in
 * front of every briefing of that moment before). Past this age (the reads keep failing) requests
 * wait for a fresh one.
 */
const RANKS_SERVE_STALE_MS = 60_000;

/** One board as a process holds it: its size, and its agents' P&Ls in ascending order. */
interface BoardCopy {
  totalAgents: number;
  pnls: Float64Array;
}

/**
 * Per database (tests hold several), the copy of the sim board. A rank used to be a count of the
 * agents ahead: one aggregation per briefing that read every ranked agent (the development database
 * scans for a count; on MongoDB it walks the index past everyone ahead), the largest cost of the
 * briefing at 10,000 agents; the board's size was a read per briefing too. Now a binary search.
 */
const copies = new WeakMap<Models, LocalCache<BoardCopy>>();

function copiesOf(models: Models): LocalCache<BoardCopy> {
  let cache = copies.get(models);
  if (!cache) copies.set(models, (cache = new LocalCache(1, () => RANKS_SERVE_STALE_MS)));
  return cache;
}

async function loadBoard(models: Models): Promise<BoardCopy> {
  const [meta, rows] = await Promise.all([
    models.LeaderboardMeta.findById(SDK_AGENTS_BOARD).lean(),
    models.Agent.find({ simTradesCount: { $gt: 0 } }, { _id: 0, leaderboardPnlMicro: 1 }).lean(),
  ]);
  return {
    totalAgents: meta?.totalAgents ?? 0,
    pnls: Float64Array.from(rows, (r) => r.leaderboardPnlMicro).sort(),
  };
}

/** How many of the ascending `sorted` are strictly greater than `value`. */
export function countAbove(sorted: Float64Array, value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! <= value) lo = mid + 1;
    else hi = mid;
  }
  return sorted.length - lo;
}

/**
 * An agent's place on the sim board (1 + the agents with a higher board P&L; null before its first
 * sim trade) and the board's size, as of its last mark.
 */
export async function boardStanding(
  models: Models,
  agent: Pick<AgentRecord, 'simTradesCount' | 'leaderboardPnlMicro'>,
): Promise<{ rank: number | null; totalAgents: number }> {
  const board = await copiesOf(models).getOrLoad(POOL_VENUE, () => loadBoard(models), {
    refreshAfterMs: RANKS_MAX_AGE_MS,
  });
  const rank = agent.simTradesCount === 0 ? null : 1 + countAbove(board.pnls, agent.leaderboardPnlMicro);
  return { rank, totalAgents: board.totalAgents };
}

/** Called by the re-mark after it wrote: this process's copy goes at once, and a read begun before is not kept. */
export function forgetBoardCopy(models: Models): void {
  copies.get(models)?.clear();
}
