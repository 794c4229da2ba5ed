import type { Models } from '../models.js';
import { fromMicro } from '../money.js';
import type { VenueStandingRecord } from '../system/venue-standing.model.js';
import { isPoolVenue, POOL_VENUE, type VenueId, venueIds } from '../venues/venue-id.js';
import { isPaperMoney, venueMoney } from '../venues/venue-conventions.js';
import {
  leaderboardEntry,
  markedPositions,
  openOn,
  remarkLeaderboard,
  shownNames,
  winRate,
  type Marked,
  type TraderType,
} from './leaderboard.js';
import { DEFAULT_LINK_WINDOW_HOURS, linkedAgents, unrankedPositionIds } from './linked-agents.js';
import { recountTallies, tallyAgents, type TallyAgent } from './venue-tallies.js';

/**
 * The venue boards (GET /api/leaderboard/{venue}, and the venue lists of /api/leaderboard/all) are
 * read models: the minute's re-mark (remarkVenueBoards, run by the remark-leaderboard job) writes one
 * row per ranked agent and venue, and a page is one indexed query. The re-mark reads each agent's
 * sums from its venue tallies (venue-tallies.ts: counted again only for agents whose ledger moved)
 * and marks the open positions: its work grows with agents and open positions, not with history.
 *
 * Who ranks on a venue: the agents with at least one filled trade there — on a real venue only
 * claimed agents (real money needs a human; an agent released later keeps its place and history).
 * By what: realised P&L (sells, settlements, redemptions) plus open positions marked at the venue's
 * price, in the venue's currency, less the positions on markets traded together with a linked agent
 * (farming policy, linked-agents.ts), which are shown as `unranked_pnl`. Ties by agent id.
 */
export const RANKING_RULE =
  'Ranked: the agents with at least one filled trade on the venue (on `polymarket` and `kalshi` only claimed agents), ' +
  'by realised P&L (sells, settlements, redemptions) plus open positions marked at the venue’s price, in the venue’s ' +
  'currency (`currency`: $SIM, pUSD, USDC), ties by agent id. Positions on a market traded together with a linked agent ' +
  '(same owner or registration address, within LEADERBOARD_LINK_WINDOW_HOURS) do not count and show as `unranked_pnl`. ' +
  'Wins and losses: the venue’s closed or settled positions (a win when the realised P&L is positive). `pnl_percent`: ' +
  'on sim, of the $SIM starting balance; on a real venue, of what the agent’s filled buys there cost. ' +
  'The boards are re-marked every minute (`marked_at`).';

/** The currency a venue's board is in: its money's own name (venue-conventions.ts). */
export const boardCurrency = (venue: VenueId) => venueMoney(venue).currency;

const metaId = (venue: VenueId) => `venue-board:${venue}`;

type Standing = Pick<
  VenueStandingRecord,
  'pnlMicro' | 'unrankedMicro' | 'spentMicro' | 'tradesCount' | 'winCount' | 'lossCount'
>;

/**
 * Every ranked agent's standing on `venue`, from the venue's tallies (venue-tallies.ts, counted just
 * before) and its open positions marked now (or taken from the caller, who marked them already);
 * the linked agents' positions are read to find what does not rank.
 */
async function standingsOn(
  models: Models,
  venue: VenueId,
  agents: ReadonlyMap<string, TallyAgent>,
  linkWindowHours: number,
  markedOpen?: Marked[],
) {
  const [tallies, open] = await Promise.all([
    models.VenueTally.find({ venue }).lean(),
    markedOpen ?? markedPositions(models, openOn(venue)),
  ]);
  const holders = tallies.flatMap((t) => agents.get(t.agentId) ?? []);
  const realMoney = !isPaperMoney(venue);
  const standings = new Map<string, Standing>();
  for (const t of tallies) {
    const holder = agents.get(t.agentId);
    // Real money needs a human: on a real venue only claimed agents rank (the tallies of the others
    // are kept, so a claim puts the agent back at the next re-mark).
    if (!holder || (realMoney && !holder.claimedBy)) continue;
    standings.set(t.agentId, {
      pnlMicro: t.realizedMicro,
      unrankedMicro: 0,
      spentMicro: t.spentMicro,
      tradesCount: t.tradesCount,
      winCount: t.winCount,
      lossCount: t.lossCount,
    });
  }
  for (const { p, unrealizedMicro } of open) {
    const s = standings.get(p.agentId);
    if (s) s.pnlMicro += unrealizedMicro;
  }
  // The farming policy: the linked agents' positions that do not rank come off their standing.
  const linked = linkedAgents(holders);
  if (linked.size) {
    const positions = await markedPositions(models, { venue, agentId: { $in: [...linked.keys()] } });
    const unranked = unrankedPositionIds(
      positions.map(({ p }) => p),
      linked,
      linkWindowHours * 3600_000,
    );
    for (const { p, unrealizedMicro } of positions) {
      const s = standings.get(p.agentId);
      if (!s || !unranked.has(p._id)) continue;
      const pnl = p.realizedPnlMicro + unrealizedMicro;
      s.pnlMicro -= pnl;
      s.unrankedMicro += pnl;
      if (p.status !== 'open') s[p.realizedPnlMicro > 0 ? 'winCount' : 'lossCount'] -= 1;
    }
  }
  for (const s of standings.values()) {
    s.pnlMicro = Math.round(s.pnlMicro);
    s.unrankedMicro = Math.round(s.unrankedMicro);
  }
  return standings;
}

const FIELDS = ['pnlMicro', 'unrankedMicro', 'spentMicro', 'tradesCount', 'winCount', 'lossCount'] as const;

/**
 * Re-marks every venue's board: writes the rows that changed, removes the agents that no longer
 * rank, and records the board's size and time. Run each minute by the remark-leaderboard job.
 */
export async function remarkVenueBoards(
  models: Models,
  now: Date,
  linkWindowHours = DEFAULT_LINK_WINDOW_HOURS,
  /** Venues' open positions marked already at `now` (the main board's re-mark marks sim's). */
  markedOpen: Partial<Record<VenueId, Marked[]>> = {},
): Promise<Record<string, { ranked: number; changed: number; removed: number }>> {
  const everyone = await tallyAgents(models);
  await recountTallies(models, everyone);
  const agents = new Map(everyone.map((a) => [a._id, a]));
  const done: Record<string, { ranked: number; changed: number; removed: number }> = {};
  for (const venue of venueIds()) {
    const standings = await standingsOn(models, venue, agents, linkWindowHours, markedOpen[venue]);
    const stored = new Map(
      (await models.VenueStanding.find({ venue }).lean()).map((row) => [row.agentId, row]),
    );
    const writes = [...standings]
      .filter(([agentId, s]) => {
        const row = stored.get(agentId);
        return !row || FIELDS.some((f) => row[f] !== s[f]);
      })
      .map(([agentId, s]) => ({
        updateOne: {
          filter: { _id: `${venue}:${agentId}` },
          update: { $set: { venue, agentId, ...s, markedAt: now } },
          upsert: true,
        },
      }));
    if (writes.length) await models.VenueStanding.bulkWrite(writes, { ordered: false });
    const gone = [...stored.keys()].filter((agentId) => !standings.has(agentId));
    if (gone.length)
      await models.VenueStanding.deleteMany({ _id: { $in: gone.map((agentId) => `${venue}:${agentId}`) } });
    await models.LeaderboardMeta.updateOne(
      { _id: metaId(venue) },
      { $set: { totalAgents: standings.size, markedAt: now } },
      { upsert: true },
    );
    done[venue] = { ranked: standings.size, changed: writes.length, removed: gone.length };
  }
  return done;
}

/**
 * The minute's whole re-mark (the remark-leaderboard job): the main board's marks, then every venue's
 * board, at one time. Sim's open positions are marked once for both: the largest read of the re-mark.
 */
export async function remarkAllBoards(
  models: Models,
  now: Date,
  linkWindowHours = DEFAULT_LINK_WINDOW_HOURS,
) {
  const sim = await markedPositions(models, openOn(POOL_VENUE));
  return {
    ...(await remarkLeaderboard(models, now, linkWindowHours, sim)),
    venues: await remarkVenueBoards(models, now, linkWindowHours, { sim }),
  };
}

/** A page of a venue's board, read from its rows (RANKING_RULE). */
export async function venueBoard(
  models: Models,
  venue: VenueId,
  traderType: TraderType,
  limit: number,
  offset: number,
) {
  const meta = await models.LeaderboardMeta.findById(metaId(venue)).lean();
  const head = {
    venue,
    trader_type: traderType,
    currency: boardCurrency(venue),
    marked_at: meta?.markedAt ? meta.markedAt.toISOString() : null,
  };
  // Every trade on this service is an agent's.
  if (traderType === 'human') return { ...head, entries: [], total_count: 0 };
  const rows = await models.VenueStanding.find({ venue })
    .sort({ pnlMicro: -1, agentId: 1 })
    .skip(offset)
    .limit(limit)
    .lean();
  const agents = new Map(
    (await models.Agent.find({ _id: { $in: rows.map((r) => r.agentId) } }).lean()).map((a) => [a._id, a]),
  );
  const names = await shownNames(models, [...agents.values()]);
  const entries = rows.flatMap((r, i) => {
    const a = agents.get(r.agentId);
    if (!a) return [];
    const base = isPoolVenue(venue) ? a.startingBalanceMicro : r.spentMicro;
    return [
      {
        ...leaderboardEntry(a, offset + i + 1, names.get(a._id)),
        venue,
        trader_type: 'agent',
        total_pnl: fromMicro(r.pnlMicro),
        pnl_percent: base ? Math.round((r.pnlMicro / base) * 1e4) / 100 : 0,
        win_rate: winRate(r.winCount, r.lossCount),
        trades_count: r.tradesCount,
        win_count: r.winCount,
        loss_count: r.lossCount,
        unranked_pnl: fromMicro(r.unrankedMicro),
      },
    ];
  });
  return { ...head, entries, total_count: meta?.totalAgents ?? 0 };
}
