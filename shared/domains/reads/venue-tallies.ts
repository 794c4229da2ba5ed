import type { AgentRecord } from '../agents/agent.model.js';
import type { Models } from '../models.js';
import { FILLED, type TradeStatus } from '../trading/trade.model.js';
import type { VenueTallyRecord } from '../system/venue-tally.model.js';
import { chunks } from '../../util/chunks.js';

/**
 * The venue boards' tallies (system/venue-tally.model.ts), counted again for the agents whose history
 * moved rather than summed over every trade each minute: at 100,000 trades the whole-history sums
 * held the trades collection for minutes on the development database and grew without bound on
 * MongoDB.
 *
 * What moved: everything a tally sums (a fill, a sale, a settlement, a redemption, a reversed match)
 * is also an entry in the agent's ledger, so an agent whose `ledgerSeq` is not the one its tallies
 * were counted at is counted again. A trade record is marked filled just after its ledger entry is
 * applied, so a count can see the entry and not yet the trade: an agent that had a trade in flight
 * (`pending` or `executing`) when it was counted is counted again at the next run, whether or not
 * its ledger moved meanwhile.
 */

/** Agents counted per pair of reads (bounds each `$in`). */
const CHUNK = 500;

export type TallyAgent = Pick<
  AgentRecord,
  '_id' | 'ledgerSeq' | 'talliedSeq' | 'talliedInFlight' | 'claimedBy' | 'registeredFrom'
>;

/** Every agent with what the boards need of it: its ledger position for the tallies, its links and claim. */
export function tallyAgents(models: Models): Promise<TallyAgent[]> {
  return models.Agent.find(
    {},
    { ledgerSeq: 1, talliedSeq: 1, talliedInFlight: 1, claimedBy: 1, registeredFrom: 1 },
  ).lean() as Promise<TallyAgent[]>;
}

/** The agents whose tallies may be out of date. */
export function dueForRecount(agents: readonly TallyAgent[]): TallyAgent[] {
  return agents.filter((a) => a.talliedSeq !== a.ledgerSeq || a.talliedInFlight === true);
}

/** Trades that may still fill: their ledger entry can be applied before the record says filled. */
const IN_FLIGHT: TradeStatus[] = ['pending', 'executing'];
/** FILLED's statuses: a trade in them that moved shares counts. */
const MOVED_SHARES: readonly TradeStatus[] = FILLED.status.$in;

type Tally = Omit<VenueTallyRecord, '_id'>;
const SUMS = ['tradesCount', 'spentMicro', 'realizedMicro', 'winCount', 'lossCount'] as const;

/**
 * Sums `agentIds`' whole history on every venue (two projected finds on the agents' own indexes), and
 * names the agents with a trade in flight.
 */
async function countAgents(models: Models, agentIds: string[]) {
  const [found, positions] = await Promise.all([
    // By agent alone, statuses sorted here: with a status in the filter the development database
    // serves it from the `{status, …}` index, every agent's trades, matched against 500 agent ids
    // each (one such read held the trades collection for minutes at 100,000 trades).
    models.Trade.find(
      { agentId: { $in: agentIds } },
      { agentId: 1, venue: 1, action: 1, status: 1, fill: 1 },
    ).lean(),
    models.Position.find(
      { agentId: { $in: agentIds } },
      { agentId: 1, venue: 1, status: 1, realizedPnlMicro: 1 },
    ).lean(),
  ]);
  const tallies = new Map<string, Tally>();
  const of = (venue: string, agentId: string) => {
    const id = `${venue}:${agentId}`;
    let t = tallies.get(id);
    if (!t) {
      t = { venue, agentId, tradesCount: 0, spentMicro: 0, realizedMicro: 0, winCount: 0, lossCount: 0 };
      tallies.set(id, t);
    }
    return t;
  };
  const inFlight = new Set<string>();
  for (const t of found) {
    if (IN_FLIGHT.includes(t.status)) inFlight.add(t.agentId);
    // FILLED: a trade that moved shares.
    if (!MOVED_SHARES.includes(t.status) || !(t.fill?.sharesMicro ?? 0)) continue;
    const tally = of(t.venue, t.agentId);
    tally.tradesCount += 1;
    if (t.action === 'buy') tally.spentMicro += t.fill?.amountMicro ?? 0;
  }
  for (const p of positions) {
    // A position on a venue the agent never filled a trade on (a transfer in) ranks nowhere.
    const tally = tallies.get(`${p.venue}:${p.agentId}`);
    if (!tally) continue;
    tally.realizedMicro += p.realizedPnlMicro;
    // A closed or settled position counts as a win when it made money, else as a loss.
    if (p.status !== 'open') tally[p.realizedPnlMicro > 0 ? 'winCount' : 'lossCount'] += 1;
  }
  return { tallies, inFlight };
}

/**
 * Counts the due agents' tallies again and writes those that changed; then records the ledger
 * position each agent was counted at (read before its history was, so an entry applied meanwhile
 * leaves it due). Returns how many agents were counted and how many tallies were written or removed.
 */
export async function recountTallies(
  models: Models,
  agents: readonly TallyAgent[],
): Promise<{ counted: number; written: number }> {
  const due = dueForRecount(agents);
  let written = 0;
  for (const chunk of chunks(due, CHUNK)) {
    const ids = chunk.map((a) => a._id);
    const [{ tallies: counted, inFlight }, stored] = await Promise.all([
      countAgents(models, ids),
      models.VenueTally.find({ agentId: { $in: ids } }).lean(),
    ]);
    const before = new Map(stored.map((t) => [t._id, t]));
    const writes = [...counted]
      .filter(([id, t]) => {
        const was = before.get(id);
        return !was || SUMS.some((f) => was[f] !== t[f]);
      })
      .map(([id, t]) => ({ updateOne: { filter: { _id: id }, update: { $set: t }, upsert: true } }));
    // A venue none of whose trades moved shares any more (a match the chain reverted): no tally.
    const gone = stored
      .filter((t) => !counted.has(t._id))
      .map((t) => ({ deleteOne: { filter: { _id: t._id } } }));
    if (writes.length + gone.length)
      await models.VenueTally.bulkWrite([...writes, ...gone], { ordered: false });
    written += writes.length + gone.length;
    await models.Agent.bulkWrite(
      chunk.map((a) => ({
        updateOne: {
          filter: { _id: a._id },
          update: {
            $set: { talliedSeq: a.ledgerSeq, talliedInFlight: inFlight.has(a._id) },
          },
        },
      })),
      { ordered: false, timestamps: false },
    );
  }
  return { counted: due.length, written };
}
