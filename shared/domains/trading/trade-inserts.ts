import mongoose from 'mongoose';
import { GroupRunner, type GroupAnswer } from '../../util/group-runner.js';
import type { Models } from '../models.js';
import type { TradeRecord } from './trade.model.js';

/** The most trade records one insert command carries (the trade workers' largest group is 64). */
const MAX_RECORDS_PER_INSERT = 64;

/** A new trade as the API records it: its id and fields; defaults and timestamps come from the schema. */
export type NewTrade = Partial<TradeRecord> & { _id: string };

/**
 * One insert command of many new trades, unordered: the database tries every record, and a
 * refusal lists each one's outcome (what `insert` below reads). The trade lifecycle issues it.
 */
export type InsertTrades = (trades: NewTrade[]) => Promise<unknown>;

/**
 * Records the API's new trades, many per insert command: while one insert is on its way, the
 * trades recorded meanwhile wait and go together in the next (under light load an insert is one
 * trade and starts at once). Per-command cost is what the database pays most for: on the
 * development database one insert of 64 took a third of the CPU per trade of 64 inserts, and the
 * trades of a wave were recorded (and so queued) one after another instead of together.
 * Each trade still gets its own outcome: a record the database refuses (a duplicate key, a
 * failed validation) fails only its own request, with the error a single insert would have given.
 */
class TradeInserts {
  private readonly pending = new Map<string, NewTrade>();
  private readonly runner: GroupRunner<string, void>;

  constructor(private readonly insertTrades: InsertTrades) {
    this.runner = new GroupRunner({
      maxGroup: MAX_RECORDS_PER_INSERT,
      waitMs: 0,
      itemName: 'trade record',
      runGroup: (ids) => this.insert(ids),
    });
  }

  async record(trade: NewTrade): Promise<void> {
    this.pending.set(trade._id, trade);
    try {
      await this.runner.run(trade._id);
    } finally {
      this.pending.delete(trade._id);
    }
  }

  private async insert(ids: string[]): Promise<Map<string, GroupAnswer<void>>> {
    const answers = new Map<string, GroupAnswer<void>>();
    try {
      await this.insertTrades(ids.map((id) => this.pending.get(id)!));
      for (const id of ids) answers.set(id, { result: undefined });
    } catch (err) {
      // Unordered: the database tried every record, and mongoose lists each one's outcome. Without
      // that list (the command itself failed: unreachable, timed out) no record is known written,
      // and every request of the group fails with the error, as its own insert would have.
      const results = perRecordOutcomes(err);
      if (!results) throw err;
      ids.forEach((id, i) => answers.set(id, outcomeOf(results[i])));
    }
    return answers;
  }
}

/**
 * The per-record outcomes of a failed insertMany, when the database answered for each record: some
 * were refused (write errors in its reply), or mongoose refused some before sending the rest (its
 * MongooseBulkWriteError, thrown after the others were written). Null when the command itself
 * failed: mongoose then still lists every record, unrefused, beside a MongoBulkWriteError with no
 * write errors (a chaos run's killed database: "connect ECONNREFUSED"), and none of them is known
 * written.
 */
function perRecordOutcomes(err: unknown): unknown[] | null {
  const e = err as { results?: unknown[]; writeErrors?: unknown[]; name?: string };
  if (!e.results) return null;
  if (e.name === 'MongooseBulkWriteError' || (e.writeErrors?.length ?? 0) > 0) return e.results;
  return null;
}

/** The driver's per-record refusal (its WriteError class is not exported): code, message, details. */
interface WriteError {
  code: number;
  errmsg: string;
  err: Record<string, unknown>;
}
const isWriteError = (r: unknown): r is WriteError =>
  typeof r === 'object' &&
  r !== null &&
  'err' in r &&
  'errmsg' in r &&
  typeof (r as WriteError).code === 'number';

/** One record's outcome in an unordered insertMany: the stored document, or why it was refused. */
function outcomeOf(result: unknown): GroupAnswer<void> {
  // What a single insert throws for the same refusal (code 11000 for a duplicate key, …).
  if (isWriteError(result))
    return { error: new mongoose.mongo.MongoServerError({ ...result.err, message: result.errmsg }) };
  if (result instanceof Error) return { error: result };
  return { result: undefined };
}

const insertsByModel = new WeakMap<Models['Trade'], TradeInserts>();

/**
 * Records a new trade with `insertTrades`, in an insert shared with the trades recorded meanwhile
 * (one gatherer per process and model).
 */
export function insertTogether(
  Trade: Models['Trade'],
  insertTrades: InsertTrades,
  trade: NewTrade,
): Promise<void> {
  let inserts = insertsByModel.get(Trade);
  if (!inserts) insertsByModel.set(Trade, (inserts = new TradeInserts(insertTrades)));
  return inserts.record(trade);
}
