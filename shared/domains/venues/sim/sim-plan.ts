import type { AgentRecord } from '../../agents/agent.model.js';
import {
  agentUpdate,
  entryFor,
  positionFromEntry,
  positionUpdate,
  type EntryDraft,
} from '../../ledger/ledger.js';
import type { LedgerEntryRecord } from '../../ledger/ledger-entry.model.js';
import type { MarketEventRecord } from '../../markets/market-event.model.js';
import { eventUpdate } from '../../markets/market-log.js';
import type { MarketRecord } from '../../markets/market.model.js';
import { positionId, type PositionRecord } from '../../positions/position.model.js';
import type { Refusal } from '../../refusal.js';
import type { TradeRecord } from '../../trading/trade.model.js';
import type { Holdings } from '../../trading/trade-result.js';
import { applyUpdate } from '../../../util/apply-update.js';
import { buySteps, removedCost, sellSteps, type SimTradeSpec } from './sim-trade-steps.js';

/**
 * The sim engine's decisions for N trades, in memory, on heads read once: every reservation, then
 * every fill, then every settlement (the ledger's order), each as the ledger entry or market event it
 * becomes, with the sequence number it takes. Pure: sim-engine.ts reads the heads and writes what
 * the plan adds; a dry run plans one trade and writes nothing.
 *
 * A step a trade already logged (an earlier run stopped half-way) is taken from the log as it was,
 * never decided again: the heads were rolled forward over it before they were read, so it is not
 * applied twice either.
 */

/** What the engine needs of a trade: a recorded one, or a dry run's request (id null, logs nothing). */
export interface SimOrder extends SimTradeSpec {
  agentId: string;
  marketId: string;
  action: 'buy' | 'sell';
}

export const orderOf = (t: TradeRecord): SimOrder => ({
  id: t._id,
  agentId: t.agentId,
  marketId: t.marketId,
  action: t.action,
  side: t.side,
  amountMicro: t.amountMicro,
  sharesMicro: t.sharesMicro,
  limit: t.limitPrice,
  source: t.source,
});

/** The steps of a trade found in the logs, by step. */
export interface LoggedSteps {
  reserve?: LedgerEntryRecord;
  fill?: MarketEventRecord;
  settle?: LedgerEntryRecord;
  release?: LedgerEntryRecord;
}

/** The ids a trade's steps are logged under: derived from the trade id, so a retry finds them. */
export const stepIds = (tradeId: string) => ({
  reserve: `${tradeId}-reserve`,
  settle: `${tradeId}-fill`,
  release: `${tradeId}-release`,
  fill: tradeId,
});

/** Why a trade whose reservation went back was refused, when its release entry predates the reason. */
const REFUSED_AFTER_RESERVATION: Refusal = {
  error: 'The book refused this trade after its reservation; the reservation was given back.',
  errorCode: 'trade_refused',
  retryable: true,
  hint: 'Nothing was filled; send the trade again.',
  category: 'market',
};

/** One trade's way through the plan. */
export interface PlannedTrade {
  order: SimOrder;
  /** The market as read, for the answer. */
  market: MarketRecord;
  target: { marketId: string; venue: 'sim'; positionId: string };
  steps:
    { kind: 'buy'; plan: ReturnType<typeof buySteps> } | { kind: 'sell'; plan: ReturnType<typeof sellSteps> };
  /**
   * The kill switch or the automaton's halt was on when the trade was first taken: its refusal,
   * given before any step.
   */
  halt: Refusal | null;
  logged: LoggedSteps;
  reserve?: LedgerEntryRecord;
  /** A sell's cost basis taken off by its reservation. */
  costOff: number;
  fill?: MarketEventRecord;
  settle?: LedgerEntryRecord;
  refusal?: Refusal;
  /** After the plan: the cash (right after the trade's own cash movement) and shares to answer with. */
  holdings?: Holdings;
  /** The agent as the settlement found it (for the go-live nudge). */
  agentBefore?: AgentRecord;
}

/** The heads a plan works on: as read (the write guards) and as its records leave them. */
export class Heads<T extends object> {
  readonly read = new Map<string, T | null>();
  readonly now = new Map<string, T | null>();
  load(id: string, doc: T | null) {
    this.read.set(id, doc);
    this.now.set(id, doc);
  }
  get(id: string): T | null {
    return this.now.get(id) ?? null;
  }
  /** The heads this plan changed. */
  changed(): { id: string; before: T | null; after: T }[] {
    return [...this.now]
      .filter(([id, doc]) => doc !== this.read.get(id))
      .map(([id, after]) => ({ id, before: this.read.get(id) ?? null, after: after! }));
  }
}

export class SimPlan {
  readonly agents = new Heads<AgentRecord>();
  readonly markets = new Heads<MarketRecord>();
  readonly positions = new Heads<PositionRecord>();
  /** The records this plan adds, by phase: each phase is durable before the next is written. */
  readonly reserves: LedgerEntryRecord[] = [];
  readonly fills: MarketEventRecord[] = [];
  readonly settles: LedgerEntryRecord[] = [];
  readonly trades: PlannedTrade[] = [];

  /** `at`: the time every record of the plan carries. */
  constructor(readonly at: Date) {}

  /**
   * Adds a trade on heads already loaded; false when they cannot carry it (a head missing, or a
   * position ahead of its agent: another writer half-way through an apply).
   */
  add(order: SimOrder, opts: { halt?: Refusal | null; logged?: LoggedSteps } = {}): boolean {
    const agent = this.agents.get(order.agentId);
    const market = this.markets.get(order.marketId);
    const pid = positionId(order.agentId, order.marketId, 'sim');
    const position = this.positions.get(pid);
    if (!agent || !market || (position && position.appliedSeq > agent.ledgerSeq)) return false;
    this.trades.push({
      order,
      market,
      target: { marketId: order.marketId, venue: 'sim', positionId: pid },
      steps:
        order.action === 'buy'
          ? { kind: 'buy', plan: buySteps(order) }
          : { kind: 'sell', plan: sellSteps(order, market.status === 'resolved') },
      halt: opts.halt ?? null,
      logged: opts.logged ?? {},
      costOff: 0,
    });
    return true;
  }

  /** Decides every added trade: reservations, then fills, then settlements. */
  decide(): PlannedTrade[] {
    for (const w of this.trades) this.reserve(w);
    for (const w of this.trades) this.fill(w);
    for (const w of this.trades) this.settle(w);
    return this.trades;
  }

  /** Logs entry `id` on the agent's ledger in memory and applies it to the heads it touches. */
  private entry(w: PlannedTrade, id: string, draft: EntryDraft, target: PlannedTrade['target'] | null) {
    const agent = this.agents.get(w.order.agentId)!;
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

  private ids(w: PlannedTrade) {
    return stepIds(w.order.id ?? 'dry-run');
  }

  private reserve(w: PlannedTrade): void {
    const logged = w.logged.reserve;
    if (logged) {
      w.reserve = logged;
      if (w.steps.kind === 'sell') w.costOff = removedCost(logged, w.order.side);
      return;
    }
    if (w.halt) {
      w.refusal = w.halt;
      return;
    }
    const agent = this.agents.get(w.order.agentId)!;
    const d =
      w.steps.kind === 'buy'
        ? w.steps.plan.reserve(agent)
        : w.steps.plan.reserve(agent, this.positions.get(w.target.positionId));
    if (!d.ok) {
      w.refusal = d.refusal;
      return;
    }
    w.reserve = this.entry(w, this.ids(w).reserve, d.value, w.steps.kind === 'buy' ? null : w.target);
    if (w.steps.kind === 'sell') w.costOff = removedCost(d.value, w.order.side);
    this.reserves.push(w.reserve);
  }

  private fill(w: PlannedTrade): void {
    if (!w.reserve) return;
    if (w.logged.fill) {
      w.fill = w.logged.fill;
      return;
    }
    // Refused and released before: the refusal stands, whatever the book says now.
    if (w.logged.release) {
      w.refusal = w.logged.release.refusal ?? REFUSED_AFTER_RESERVATION;
      return;
    }
    const market = this.markets.get(w.order.marketId)!;
    const d = w.steps.plan.fill(market, this.at);
    if (!d.ok) {
      w.refusal = d.refusal;
      return;
    }
    const event = {
      ...d.value,
      marketId: market._id,
      at: this.at,
      _id: this.ids(w).fill,
      seq: market.book.version + 1,
    } as MarketEventRecord;
    this.markets.now.set(market._id, applyUpdate(market, eventUpdate(event)));
    this.fills.push(event);
    w.fill = event;
  }

  private settle(w: PlannedTrade): void {
    if (!w.reserve) return this.refused(w);
    if (!w.fill) {
      // Refused by the book after the reservation: the reservation goes back, with the reason.
      if (!w.logged.release) {
        const draft = w.steps.kind === 'buy' ? w.steps.plan.release() : w.steps.plan.release(w.costOff);
        const target = w.steps.kind === 'buy' ? null : w.target;
        this.settles.push(this.entry(w, this.ids(w).release, { ...draft, refusal: w.refusal }, target));
      }
      return this.refused(w);
    }
    w.agentBefore = this.agents.get(w.order.agentId)!;
    w.settle = w.logged.settle;
    if (!w.settle) {
      const draft =
        w.steps.kind === 'buy'
          ? w.steps.plan.settle(w.fill)
          : w.steps.plan.settle(w.fill, w.costOff, this.positions.get(w.target.positionId));
      w.settle = this.entry(w, this.ids(w).settle, draft, w.target);
      this.settles.push(w.settle);
    }
    // A buy's own debit is its reservation: the answer shows the balance right after it.
    const balance = w.steps.kind === 'buy' ? w.reserve.balanceAfterMicro : w.settle.balanceAfterMicro;
    w.holdings = this.holdings(w, balance);
  }

  private refused(w: PlannedTrade): void {
    w.holdings = this.holdings(w, this.agents.get(w.order.agentId)!.balanceMicro);
  }

  private holdings(w: PlannedTrade, balanceMicro: number): Holdings {
    const position = this.positions.get(w.target.positionId);
    return {
      balanceMicro,
      sharesYesMicro: position?.sharesYesMicro ?? 0,
      sharesNoMicro: position?.sharesNoMicro ?? 0,
    };
  }
}
