import type { AgentRecord } from '../../agents/agent.model.js';
import { afterWrite } from '../../../infra/faults.js';
import {
  agentUpdate,
  entryFor,
  positionFromEntry,
  positionUpdate,
  rollForwardAgent,
  type EntryDraft,
} from '../../ledger/ledger.js';
import type { LedgerEntryRecord } from '../../ledger/ledger-entry.model.js';
import { TRADING_PAUSED } from '../../limits/trade-guard.js';
import type { MarketEventRecord } from '../../markets/market-event.model.js';
import { eventUpdate, rollForwardMarket, type MarketEventDraft } from '../../markets/market-log.js';
import type { MarketRecord } from '../../markets/market.model.js';
import { positionId, type PositionRecord } from '../../positions/position.model.js';
import type { Refusal } from '../../refusal.js';
import { buyPlan, removedCost, sellPlan } from './sim-trade-plan.js';
import { applyUpdate, changedFields } from '../../../util/apply-update.js';
import { executeTrade } from '../../trading/execute-trade.js';
import { fillAnswer, planOf } from './sim-execute.js';
import type { TradeExecutionContext } from '../../trading/execution-context.js';
import { claimTrades, finishTrades, type TradeOutcome } from '../../trading/trade-lifecycle.js';
import type { TradeRecord } from '../../trading/trade.model.js';
import { refusedResult, shapeOf, type Holdings } from '../../trading/trade-result.js';
import type { TradeResult } from '../../trading/trade.schemas.js';

/**
 * Group commit of sim trades: the trades a worker has in hand are claimed together, decided in
 * memory on heads read once, and written with one bulk command per collection and phase, instead
 * of a dozen round trips each.
 *
 * The batch writes exactly the records the one-trade path (execute-trade.ts) writes, with the same
 * ids and sequence numbers: reserve entries, then fill events, then settle (or release) entries,
 * each phase durable before the next begins (a fill is never logged before the cash that pays for
 * it), then the heads, then the trades' outcomes. So a crash anywhere leaves a state the one-trade
 * path resumes from, and anything unexpected (a sequence number taken by another writer, a head
 * ahead of its log) hands the batch's unfinished trades to that path. Exactly-once, conservation and
 * one writer per stream are the logs' properties, not the batch's.
 */

type BuyPlan = ReturnType<typeof buyPlan>;
type SellPlan = ReturnType<typeof sellPlan>;

/** One trade's way through the batch. */
interface Work {
  t: TradeRecord;
  /** The market as read, for the answer. */
  market: MarketRecord;
  target: { marketId: string; venue: TradeRecord['venue']; positionId: string };
  plan: { kind: 'buy'; steps: BuyPlan } | { kind: 'sell'; steps: SellPlan };
  paused: boolean;
  reserve?: LedgerEntryRecord;
  /** A sell's cost basis taken off by its reservation. */
  costOff: number;
  fill?: MarketEventRecord;
  refusal?: Refusal;
  settle?: LedgerEntryRecord;
  answer?: { result: TradeResult; outcome: TradeOutcome };
}

/** The heads a batch works on: as read (the write guards) and as its events leave them. */
class Heads<T extends object> {
  readonly read = new Map<string, T | null>();
  readonly now = new Map<string, T | null>();
  load(id: string, doc: T | null) {
    this.read.set(id, doc);
    this.now.set(id, doc);
  }
  get(id: string): T | null {
    return this.now.get(id) ?? null;
  }
  /** The heads this batch changed. */
  changed(): { id: string; before: T | null; after: T }[] {
    return [...this.now]
      .filter(([id, doc]) => doc !== this.read.get(id))
      .map(([id, after]) => ({ id, before: this.read.get(id) ?? null, after: after! }));
  }
}

const holdings = (balanceMicro: number, position: PositionRecord | null): Holdings => ({
  balanceMicro,
  sharesYesMicro: position?.sharesYesMicro ?? 0,
  sharesNoMicro: position?.sharesNoMicro ?? 0,
});

/** Decides the batch in memory, in the ledger's order: every reservation, every fill, every settlement. */
class BatchPlan {
  readonly agents = new Heads<AgentRecord>();
  readonly markets = new Heads<MarketRecord>();
  readonly positions = new Heads<PositionRecord>();
  readonly reserves: LedgerEntryRecord[] = [];
  readonly fills: MarketEventRecord[] = [];
  readonly settles: LedgerEntryRecord[] = [];

  constructor(
    private readonly ctx: TradeExecutionContext,
    private readonly at: Date,
  ) {}

  /** Logs entry `id` on the agent's ledger in memory and applies it to the heads it touches. */
  private entry(w: Work, id: string, draft: EntryDraft, target: Work['target'] | null): LedgerEntryRecord {
    const agent = this.agents.get(w.t.agentId)!;
    const entry = {
      ...entryFor(id, agent, draft, target, this.at),
      _id: id,
      seq: agent.ledgerSeq + 1,
    } as LedgerEntryRecord;
    if (entry.position) {
      const position = this.positions.get(entry.position.positionId);
      this.positions.now.set(
        entry.position.positionId,
        position ? applyUpdate(position, positionUpdate(entry)) : positionFromEntry(entry),
      );
    }
    this.agents.now.set(agent._id, applyUpdate(agent, agentUpdate(entry)));
    return entry;
  }

  reserve(w: Work): void {
    if (w.paused) {
      w.refusal = TRADING_PAUSED;
      return;
    }
    const agent = this.agents.get(w.t.agentId)!;
    const id = `${w.t._id}-reserve`;
    if (w.plan.kind === 'buy') {
      const d = w.plan.steps.reserve(agent);
      if (!d.ok) w.refusal = d.refusal;
      else w.reserve = this.entry(w, id, d.value, null);
    } else {
      const d = w.plan.steps.reserve(agent, this.positions.get(w.target.positionId));
      if (!d.ok) w.refusal = d.refusal;
      else {
        w.reserve = this.entry(w, id, d.value, w.target);
        w.costOff = removedCost(d.value, w.t.side);
      }
    }
    if (w.reserve) this.reserves.push(w.reserve);
  }

  fill(w: Work): void {
    if (!w.reserve) return;
    const market = this.markets.get(w.t.marketId)!;
    const d = w.plan.steps.fill(market, this.at);
    if (!d.ok) {
      w.refusal = d.refusal;
      return;
    }
    const draft: MarketEventDraft = d.value;
    const event = {
      ...draft,
      marketId: market._id,
      at: this.at,
      _id: w.t._id,
      seq: market.book.version + 1,
    } as MarketEventRecord;
    this.markets.now.set(market._id, applyUpdate(market, eventUpdate(event)));
    this.fills.push(event);
    w.fill = event;
  }

  settle(w: Work): void {
    const { t } = w;
    if (!w.reserve) return this.refuse(w);
    if (!w.fill) {
      // Refused by the book after the reservation: the reservation goes back.
      const draft = w.plan.kind === 'buy' ? w.plan.steps.release() : w.plan.steps.release(w.costOff);
      this.settles.push(this.entry(w, `${t._id}-release`, draft, w.plan.kind === 'buy' ? null : w.target));
      return this.refuse(w);
    }
    const agentBefore = this.agents.get(t.agentId)!;
    const draft =
      w.plan.kind === 'buy'
        ? w.plan.steps.settle(w.fill)
        : w.plan.steps.settle(w.fill, w.costOff, this.positions.get(w.target.positionId));
    w.settle = this.entry(w, `${t._id}-fill`, draft, w.target);
    this.settles.push(w.settle);
    // A buy's own debit is its reservation: the answer shows the balance right after it.
    const balance = w.plan.kind === 'buy' ? w.reserve.balanceAfterMicro : w.settle.balanceAfterMicro;
    w.answer = fillAnswer(
      this.ctx,
      t,
      w.market,
      w.fill,
      holdings(balance, this.positions.get(w.target.positionId)),
      w.settle.simTradesAfter,
      agentBefore,
    );
  }

  private refuse(w: Work): void {
    const refusal = w.refusal!;
    const now = holdings(this.agents.get(w.t.agentId)!.balanceMicro, this.positions.get(w.target.positionId));
    w.answer = { result: refusedResult(shapeOf(w.t), w.market, refusal, now, false), outcome: { refusal } };
  }
}

/** The batch's heads written back, each guarded by the sequence it was read at. */
async function writeHeads(ctx: TradeExecutionContext, plan: BatchPlan): Promise<boolean> {
  const { Agent, Market, Position } = ctx.models;
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
  // this batch's last sequence would then leave the rest unapplied to the position for good; left
  // behind, the agent is rolled forward entry by entry, each guarded on the position.
  if (!missed) await guarded(Agent, agents, (a: AgentRecord) => ({ ledgerSeq: a.ledgerSeq }));
  await guarded(Market, markets, (m: MarketRecord) => ({ 'book.version': m.book.version }));
  return missed === 0;
}

const insertAll = async (
  collection: { insertMany: (docs: never[], o: object) => Promise<unknown> },
  docs: object[],
) => {
  if (!docs.length) return;
  // Ordered: an entry that cannot be logged (its sequence number taken) stops the ones after it,
  // which may have been decided on it.
  await collection.insertMany(docs as never[], { ordered: true });
  afterWrite();
};

/**
 * Claims the pending sim trades among `tradeIds` and reads every head they touch (agents, markets, then positions);
 * the trades this batch can take whole, in the order they came.
 */
async function prepare(
  ctx: TradeExecutionContext,
  plan: BatchPlan,
  tradeIds: string[],
  at: Date,
  claimedHere: Map<string, TradeRecord>,
): Promise<Work[]> {
  const { Agent, Market, Position } = ctx.models;
  const order = new Map(tradeIds.map((id, i) => [id, i]));
  const all = await claimTrades(ctx.models, tradeIds, at);
  for (const t of all) claimedHere.set(t._id, t);
  // Real-venue orders go one by one: each waits on its venue, not on this database.
  const claimed = all.filter((t) => t.venue === 'sim').sort((a, b) => order.get(a._id)! - order.get(b._id)!);
  if (!claimed.length) return [];
  const unique = (ids: string[]) => [...new Set(ids)];
  const pids = unique(claimed.map((t) => positionId(t.agentId, t.marketId, t.venue)));
  const [agents, markets, paused] = await Promise.all([
    Agent.find({ _id: { $in: unique(claimed.map((t) => t.agentId)) } }).lean(),
    Market.find({ _id: { $in: unique(claimed.map((t) => t.marketId)) } }).lean(),
    // The kill switch again, now that a worker takes the trades (see executeTrade).
    Promise.all(claimed.map((t) => (t.ownerKey ? ctx.ownerPaused(t.ownerKey) : false))),
  ]);
  // Positions only after their agents: a writer applies an entry to the position before its agent,
  // so a position read later is never behind the agent read, and one ahead is caught below. Read
  // together, a position could predate entries its agent already counts, and be decided on stale.
  const positions = await Position.find({ _id: { $in: pids } }).lean();
  for (const a of agents) plan.agents.load(a._id, a as AgentRecord);
  for (const m of markets) plan.markets.load(m._id, m as MarketRecord);
  for (const pid of pids) plan.positions.load(pid, null);
  for (const p of positions) plan.positions.load(p._id, p as PositionRecord);
  const works: Work[] = [];
  claimed.forEach((t, i) => {
    const agent = plan.agents.get(t.agentId);
    const market = plan.markets.get(t.marketId);
    const pid = positionId(t.agentId, t.marketId, t.venue);
    const position = plan.positions.get(pid);
    // Missing heads, or a position ahead of its agent (another writer half-way through an apply):
    // the one-trade path answers or waits for it.
    if (!agent || !market || (position && position.appliedSeq > agent.ledgerSeq)) return;
    works.push({
      t,
      market,
      target: { marketId: t.marketId, venue: t.venue, positionId: pid },
      plan:
        t.action === 'buy'
          ? { kind: 'buy', steps: buyPlan(planOf(t)) }
          : { kind: 'sell', steps: sellPlan(planOf(t), market.status === 'resolved') },
      paused: paused[i]!,
      costOff: 0,
    });
  });
  return works;
}

/** Brings the batch's heads up to date with their logs. */
async function rollForward(ctx: TradeExecutionContext, works: Work[]): Promise<void> {
  for (const id of new Set(works.map((w) => w.t.agentId))) await rollForwardAgent(ctx.models, id);
  for (const id of new Set(works.map((w) => w.t.marketId))) await rollForwardMarket(ctx.models, id);
}

export type BatchAnswer = { result: TradeResult } | { error: unknown };

/**
 * Executes the trades `tradeIds` (jobs in hand) and answers each. Trades this batch cannot take
 * whole (not pending any more, inconsistent heads, a conflict while writing) run on the one-trade path.
 */
export async function executeTradeBatch(
  ctx: TradeExecutionContext,
  tradeIds: string[],
): Promise<Map<string, BatchAnswer>> {
  const answers = new Map<string, BatchAnswer>();
  // Trades this batch claimed but leaves to the one-trade path still get a first run's checks.
  const claimedHere = new Map<string, TradeRecord>();
  let taken = new Set<string>();
  const alone = async (ids: string[]) => {
    for (const id of ids) {
      if (answers.has(id)) continue;
      try {
        // A trade the batch began (its entries may be logged) resumes; one it left out starts.
        answers.set(id, {
          result: await executeTrade(ctx, id, taken.has(id) ? undefined : claimedHere.get(id)),
        });
      } catch (error) {
        answers.set(id, { error });
      }
    }
  };
  const at = ctx.now();
  const plan = new BatchPlan(ctx, at);
  let works: Work[] = [];
  try {
    works = await prepare(ctx, plan, tradeIds, at, claimedHere);
  } catch (error) {
    for (const id of tradeIds) answers.set(id, { error });
    return answers;
  }
  taken = new Set(works.map((w) => w.t._id));
  try {
    const fit = works;
    for (const w of fit) plan.reserve(w);
    for (const w of fit) plan.fill(w);
    for (const w of fit) plan.settle(w);
    await insertAll(ctx.models.LedgerEntry.collection, plan.reserves);
    await insertAll(ctx.models.MarketEvent.collection, plan.fills);
    await insertAll(ctx.models.LedgerEntry.collection, plan.settles);
    if (!(await writeHeads(ctx, plan))) {
      // Another writer applied some of these entries first: roll the heads forward from the logs.
      await rollForward(ctx, fit);
    }
    const finished = await finishTrades(
      ctx.models,
      fit.map((w) => ({ tradeId: w.t._id, ...w.answer! })),
      at,
    );
    for (const [id, result] of finished) answers.set(id, { result });
  } catch (err) {
    ctx.log.warn({ err, trades: works.length }, 'group commit interrupted; its trades resume one by one');
  }
  // Claimed but not finished here, or not taken whole (claimed elsewhere, finished, stopped, or on
  // inconsistent heads): the one-trade path resumes or answers each.
  await alone([...tradeIds.filter((id) => taken.has(id)), ...tradeIds.filter((id) => !taken.has(id))]);
  return answers;
}
