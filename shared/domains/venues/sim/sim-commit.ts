import type { AgentRecord } from '../../agents/agent.model.js';
import { afterWrite } from '../../../infra/faults.js';
import type { MarketRecord } from '../../markets/market.model.js';
import type { Models } from '../../models.js';
import { changedFields } from '../../../util/apply-update.js';
import type { SimPlan } from './sim-plan.js';

/**
 * Writes what a sim plan added, in the ledger's order, one bulk command per collection and phase:
 * reservations, then fills, then settlements (each phase durable before the next begins: a fill is
 * never logged before the cash that pays for it), then the heads. A record whose sequence number
 * (or id) another writer took first fails its insert on the log's unique index and stops the ones
 * after it, which may have been decided on it: the caller plans again from the logs.
 */
export async function commitRecords(models: Models, plan: SimPlan): Promise<void> {
  await insertInOrder(models.LedgerEntry.collection, plan.reserves);
  await insertInOrder(models.MarketEvent.collection, plan.fills);
  await insertInOrder(models.LedgerEntry.collection, plan.settles);
}

const insertInOrder = async (
  collection: { insertMany: (docs: never[], o: object) => Promise<unknown> },
  docs: object[],
) => {
  if (!docs.length) return;
  await collection.insertMany(docs as never[], { ordered: true });
  afterWrite();
};

/**
 * The plan's heads written back, each guarded by the sequence it was read at. False when a guard
 * missed: another writer applied some of these records first, and the heads are to be rolled
 * forward from the logs.
 */
export async function writeHeads(models: Models, plan: SimPlan): Promise<boolean> {
  const { Agent, Market, Position } = models;
  const positions = plan.positions.changed();
  const agents = plan.agents.changed();
  const markets = plan.markets.changed();
  let missed = 0;
  // Positions before agents, as in the one-entry apply: a position is never behind its agent.
  if (positions.length) {
    const written = await Position.bulkWrite(
      positions.map(({ before, after }) =>
        before
          ? {
              updateOne: {
                filter: { _id: after._id, appliedSeq: before.appliedSeq },
                update: { $set: changedFields(before, after) },
              },
            }
          : { insertOne: { document: after } },
      ),
      { ordered: false, timestamps: false },
    ).catch((err: { result?: { insertedCount: number; matchedCount: number } }) => {
      // A position created meanwhile by another writer rolling these entries forward.
      if (!err.result) throw err;
      return err.result;
    });
    afterWrite();
    missed += positions.length - written.insertedCount - written.matchedCount;
  }
  const guarded = async <T extends object>(
    model: typeof Agent | typeof Market,
    heads: { id: string; before: T | null; after: T }[],
    guard: (before: T) => Record<string, unknown>,
  ) => {
    if (!heads.length) return;
    const written = await (model as typeof Agent).bulkWrite(
      heads.map(({ id, before, after }) => ({
        updateOne: {
          filter: { _id: id, ...guard(before!) },
          update: { $set: changedFields(before!, after) },
        },
      })),
      { ordered: false },
    );
    afterWrite();
    missed += heads.length - written.matchedCount;
  };
  // An agent only after every position it moved: a position write that missed means another writer
  // moved that position since it was read, possibly a roll-forward that applied some of these entries
  // to it and stopped (killed, or cut off by an outage) before their agent. Marking the agent with
  // this plan's last sequence would then leave the rest unapplied to the position for good; left
  // behind, the agent is rolled forward entry by entry, each guarded on the position.
  if (!missed) await guarded(Agent, agents, (a: AgentRecord) => ({ ledgerSeq: a.ledgerSeq }));
  await guarded(Market, markets, (m: MarketRecord) => ({ 'book.version': m.book.version }));
  return missed === 0;
}
