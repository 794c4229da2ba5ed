import type { AgentRecord } from '../agents/agent.model.js';
import type { PositionRecord } from '../positions/position.model.js';

/**
 * The leaderboard's farming rule (issue 16, finding 9). On an automated market maker one agent can
 * push a price for another to sell into, moving its own money to the other's P&L. So two agents held
 * by one hand — claimed by the same owner, or registered from the same client address — that trade
 * the same market on the same venue within LEADERBOARD_LINK_WINDOW_HOURS of each other do not rank on
 * that market: both positions are left out of the public boards' P&L (and wins and losses), whoever
 * gained. The agents themselves and their owners still see their whole P&L.
 */

/** The default of LEADERBOARD_LINK_WINDOW_HOURS. */
export const DEFAULT_LINK_WINDOW_HOURS = 24;

type LinkFields = Pick<AgentRecord, '_id' | 'claimedBy' | 'registeredFrom'>;
type TimedPosition = Pick<PositionRecord, '_id' | 'agentId' | 'marketId' | 'venue'> &
  Partial<Pick<PositionRecord, 'openedAt' | 'lastTradeAt'>>;

const linksOf = (a: LinkFields) =>
  [a.claimedBy && `owner:${a.claimedBy}`, a.registeredFrom && `from:${a.registeredFrom}`].filter(
    (k): k is string => Boolean(k),
  );

/** The agents that share an owner or a registration address with another of `agents`, with their links. */
export function linkedAgents(agents: readonly LinkFields[]): Map<string, string[]> {
  const members = new Map<string, number>();
  for (const a of agents) for (const link of linksOf(a)) members.set(link, (members.get(link) ?? 0) + 1);
  const linked = new Map<string, string[]>();
  for (const a of agents) {
    const shared = linksOf(a).filter((link) => members.get(link)! > 1);
    if (shared.length) linked.set(a._id, shared);
  }
  return linked;
}

/** When a position traded: from its first to its last trade (a position without times counts as always). */
const span = (p: TimedPosition) => ({
  from: p.openedAt?.getTime() ?? -Infinity,
  to: p.lastTradeAt?.getTime() ?? p.openedAt?.getTime() ?? Infinity,
});

/**
 * The ids of the positions that do not rank: a linked agent's position on a market where another
 * agent of the same link traded within `windowMs` of it.
 */
export function unrankedPositionIds(
  positions: readonly TimedPosition[],
  linked: ReadonlyMap<string, readonly string[]>,
  windowMs: number,
): Set<string> {
  const byMarket = new Map<string, TimedPosition[]>();
  for (const p of positions) {
    if (!linked.has(p.agentId)) continue;
    const key = `${p.venue}:${p.marketId}`;
    byMarket.set(key, [...(byMarket.get(key) ?? []), p]);
  }
  const unranked = new Set<string>();
  for (const group of byMarket.values()) {
    for (let i = 0; i < group.length; i++) {
      for (let j = i + 1; j < group.length; j++) {
        const [a, b] = [group[i]!, group[j]!];
        if (a.agentId === b.agentId) continue;
        const sameHand = linked.get(a.agentId)!.some((link) => linked.get(b.agentId)!.includes(link));
        const [x, y] = [span(a), span(b)];
        if (sameHand && x.from - windowMs <= y.to && y.from - windowMs <= x.to) {
          unranked.add(a._id);
          unranked.add(b._id);
        }
      }
    }
  }
  return unranked;
}
