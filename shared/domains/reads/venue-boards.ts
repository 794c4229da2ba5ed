import type { Models } from '../models.js';
import { fromMicro } from '../money.js';
import { FILLED } from '../trading/trade.model.js';
import type { VenueStandingRecord } from '../system/venue-standing.model.js';
import { venueIds, type VenueId } from '../venues/venue-id.js';
import {
  leaderboardEntry,
  markedPositions,
  openOn,
  shownNames,
  winRate,
  type Marked,
  type TraderType,
} from './leaderboard.js';
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

type TradeSums = { _id: string; trades: number; spent: number };
type PositionSums = { _id: string; realized: number; wins: number; losses: number };

/** A closed or settled position counts as a win when it made money, else as a loss. */
const decided = (won: boolean) => ({
  $cond: [
    {
      $and: [
        { $ne: ['$status', 'open'] },
        won ? { $gt: ['$realizedPnlMicro', 0] } : { $lte: ['$realizedPnlMicro', 0] },
      ],
    },
    1,
    0,
  ],
});

/**
 * Every ranked agent's standing on `venue`. Sums come from two aggregations, one over the venue's
 * filled trades and one over its positions (each reads its collection once; settled positions are
 * never loaded); only open positions are loaded to be marked (or taken from the caller, who marked
 * them already), and the linked agents' positions to find what does not rank.
 */
async function standingsOn(models: Models, venue: VenueId, linkWindowHours: number, markedOpen?: Marked[]) {
  const [tradeSums, positionSums, open] = await Promise.all([
    models.Trade.aggregate<TradeSums>([
      { $match: { venue, ...FILLED } },
      {
        $group: {
          _id: '$agentId',
          trades: { $sum: 1 },
          spent: { $sum: { $cond: [{ $eq: ['$action', 'buy'] }, '$fill.amountMicro', 0] } },
        },
      },
    ]),
    models.Position.aggregate<PositionSums>([
      { $match: { venue } },
      {
        $group: {
          _id: '$agentId',
          realized: { $sum: '$realizedPnlMicro' },
          wins: { $sum: decided(true) },
          losses: { $sum: decided(false) },
        },
      },
    ]),
    markedOpen ?? markedPositions(models, openOn(venue)),
  ]);
  const holders = await models.Agent.find(
    { _id: { $in: tradeSums.map((t) => t._id) } },
    { claimedBy: 1, registeredFrom: 1 },
  ).lean();
  const realMoney = venue !== 'sim';
  const byAgent = new Map(positionSums.map((r) => [r._id, r]));
  const standings = new Map<string, Standing>();
  for (const t of tradeSums) {
    const held = byAgent.get(t._id);
    standings.set(t._id, {
      pnlMicro: held?.realized ?? 0,
      unrankedMicro: 0,
      spentMicro: t.spent,
      tradesCount: t.trades,
      winCount: held?.wins ?? 0,
      lossCount: held?.losses ?? 0,
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
  /** Venues' open positions marked already at `now` (the main board's re-mark marks sim's). */
  markedOpen: Partial<Record<VenueId, Marked[]>> = {},
): Promise<Record<string, { ranked: number; changed: number; removed: number }>> {
  const done: Record<string, { ranked: number; changed: number; removed: number }> = {};
  for (const venue of venueIds()) {
    const standings = await standingsOn(models, venue, linkWindowHours, markedOpen[venue]);
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
