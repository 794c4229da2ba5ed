import type { AgentRecord } from '../agents/agent.model.js';
import { LocalCache } from '../../infra/local-cache.js';
import type { Models } from '../models.js';

/** The sim board's name in leaderboard_meta. */
export const SDK_AGENTS_BOARD = 'sdk-agents';

/**
 * How long one process serves ranks from the same copy of the board's P&Ls. A board's P&Ls change
 * only when it is re-marked (the copy is keyed by the mark, so a new mark is read at once); what a
 * copy can miss are agents whose first trade came after it, who enter at P&L 0 and so move only the
 * agents below 0 down one place each, for at most this long.
 */
export const RANKS_MAX_AGE_MS = 5_000;

/**
 * Per database (tests hold several), the ranked agents' board P&Ls in ascending order, keyed by the
 * board's last mark. A rank used to be a count of the agents ahead: one aggregation per briefing that
 * read every ranked agent (the development database scans for a count; on MongoDB it walks the index
 * past everyone ahead), the largest cost of the briefing at 10,000 agents. Now a binary search.
 */
const copies = new WeakMap<Models, LocalCache<Float64Array>>();

function copiesOf(models: Models): LocalCache<Float64Array> {
  let cache = copies.get(models);
  if (!cache) copies.set(models, (cache = new LocalCache(2, () => RANKS_MAX_AGE_MS)));
  return cache;
}

async function loadPnls(models: Models): Promise<Float64Array> {
  const rows = await models.Agent.find(
    { simTradesCount: { $gt: 0 } },
    { _id: 0, leaderboardPnlMicro: 1 },
  ).lean();
  return Float64Array.from(rows, (r) => r.leaderboardPnlMicro).sort();
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
  const meta = await models.LeaderboardMeta.findById(SDK_AGENTS_BOARD).lean();
  const totalAgents = meta?.totalAgents ?? 0;
  if (agent.simTradesCount === 0) return { rank: null, totalAgents };
  const mark = String(meta?.markedAt?.getTime() ?? 0);
  const pnls = await copiesOf(models).getOrLoad(mark, () => loadPnls(models));
  return { rank: 1 + countAbove(pnls, agent.leaderboardPnlMicro), totalAgents };
}

/**
 * Called by the re-mark after it wrote: this process's copy goes at once (another process sees the
 * new mark in leaderboard_meta; a re-mark at the same instant, as under a test's fixed clock, would
 * otherwise keep the old copy).
 */
export function forgetBoardCopy(models: Models): void {
  copies.get(models)?.clear();
}
