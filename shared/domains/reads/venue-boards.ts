import type { Models } from '../models.js';
import { fromMicro } from '../money.js';
import { FILLED } from '../trading/trade.model.js';
import type { VenueStandingRecord } from '../system/venue-standing.model.js';
import { venueIds, type VenueId } from '../venues/venue-id.js';
import { leaderboardEntry, markedPositions, shownNames, winRate, type TraderType } from './leaderboard.js';
import { DEFAULT_LINK_WINDOW_HOURS, linkedAgents, unrankedPositionIds } from './linked-agents.js';

/**
 * The venue boards (GET /api/leaderboard/{venue}, and the venue lists of /api/leaderboard/all) are
 * read models: the minute's re-mark (remarkVenueBoards, run by the remark-leaderboard job) writes one
 * row per ranked agent and venue, and a page is one indexed query.
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

/** The currency a venue's board is in (other registered venues: dollars). */
const CURRENCIES: Record<string, string> = { sim: '$SIM', polymarket: 'pUSD', kalshi: 'USDC' };
export const boardCurrency = (venue: VenueId) => CURRENCIES[venue] ?? 'USD';

const metaId = (venue: VenueId) => `venue-board:${venue}`;

type Standing = Pick<
  VenueStandingRecord,
  'pnlMicro' | 'unrankedMicro' | 'spentMicro' | 'tradesCount' | 'winCount' | 'lossCount'
>;

const byAgent = (rows: { _id: string; v: number }[]) => new Map(rows.map((r) => [r._id, r.v]));

/**
 * Every ranked agent's standing on `venue`. Sums come from aggregations (settled positions are never
 * loaded); only open positions are loaded to be marked, and the linked agents' positions to find
 * what does not rank.
 */
async function standingsOn(models: Models, venue: VenueId, linkWindowHours: number) {
  const sum = (field: string) => ({ $sum: field });
  const count = { $sum: 1 };
  const [trades, spent, realized, wins, losses, open] = await Promise.all([
    models.Trade.aggregate<{ _id: string; v: number }>([
      { $match: { venue, ...FILLED } },
      { $group: { _id: '$agentId', v: count } },
    ]),
    models.Trade.aggregate<{ _id: string; v: number }>([
      { $match: { venue, action: 'buy', ...FILLED } },
      { $group: { _id: '$agentId', v: sum('$fill.amountMicro') } },
    ]),
    models.Position.aggregate<{ _id: string; v: number }>([
      { $match: { venue } },
      { $group: { _id: '$agentId', v: sum('$realizedPnlMicro') } },
    ]),
    models.Position.aggregate<{ _id: string; v: number }>([
      { $match: { venue, status: { $ne: 'open' }, realizedPnlMicro: { $gt: 0 } } },
      { $group: { _id: '$agentId', v: count } },
    ]),
    models.Position.aggregate<{ _id: string; v: number }>([
      { $match: { venue, status: { $ne: 'open' }, realizedPnlMicro: { $lte: 0 } } },
      { $group: { _id: '$agentId', v: count } },
    ]),
    markedPositions(models, { venue, status: { $ne: 'settled' } }),
  ]);
  const holders = await models.Agent.find(
    { _id: { $in: trades.map((t) => t._id) } },
    { claimedBy: 1, registeredFrom: 1 },
  ).lean();
  const realMoney = venue !== 'sim';
  const [spentOf, realizedOf, winsOf, lossesOf] = [spent, realized, wins, losses].map(byAgent);
  const standings = new Map<string, Standing>();
  for (const [agentId, n] of byAgent(trades)) {
    standings.set(agentId, {
      pnlMicro: realizedOf!.get(agentId) ?? 0,
      unrankedMicro: 0,
      spentMicro: spentOf!.get(agentId) ?? 0,
      tradesCount: n,
      winCount: winsOf!.get(agentId) ?? 0,
      lossCount: lossesOf!.get(agentId) ?? 0,
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
  const claimed = new Set(holders.filter((a) => a.claimedBy).map((a) => a._id));
  for (const agentId of standings.keys()) if (realMoney && !claimed.has(agentId)) standings.delete(agentId);
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
): Promise<Record<string, { ranked: number; changed: number; removed: number }>> {
  const done: Record<string, { ranked: number; changed: number; removed: number }> = {};
  for (const venue of venueIds()) {
    const standings = await standingsOn(models, venue, linkWindowHours);
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
    const base = venue === 'sim' ? a.startingBalanceMicro : r.spentMicro;
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
