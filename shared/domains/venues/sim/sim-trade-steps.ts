import type { AgentRecord } from '../../agents/agent.model.js';
import type { EntryDraft } from '../../ledger/ledger.js';
import type { MarketRecord } from '../../markets/market.model.js';
import type { PositionRecord } from '../../positions/position.model.js';
import { accept, type Decision } from '../../refusal.js';
import type { Outcome } from '../../markets/lmsr.js';
import {
  decideBuyFill,
  decideBuyReserve,
  decideSellFill,
  decideSellReserve,
  type FillQuote,
} from './sim-decisions.js';

/**
 * A sim trade as pure steps: what to reserve, how the book fills, what to release if it does not,
 * and what settles the fill, each as the ledger entry or market event it becomes. The sim engine
 * (sim-plan.ts) decides every trade with these steps, live or dry run, so "a dry run quotes what
 * the live trade fills" holds by construction.
 */
export interface SimTradeSpec {
  /** The trade id; null for a dry run, which logs nothing. */
  id: string | null;
  side: Outcome;
  amountMicro: number;
  sharesMicro: number;
  limit: number | null;
  source: string | null;
}

const key = (side: Outcome) =>
  side === 'yes'
    ? ({ shares: 'sharesYesMicro', cost: 'costYesMicro', reserved: 'reservedYesMicro' } as const)
    : ({ shares: 'sharesNoMicro', cost: 'costNoMicro', reserved: 'reservedNoMicro' } as const);

/** Buy `amountMicro` of one side: cash reserved, the book filled, the shares and cost booked. */
export const buySteps = (t: SimTradeSpec) => ({
  reserve: (agent: AgentRecord): Decision<EntryDraft> => {
    const d = decideBuyReserve(agent, t.amountMicro);
    return d.ok
      ? accept({
          kind: 'reserve',
          tradeId: t.id,
          agent: { balanceMicro: -t.amountMicro, reservedMicro: t.amountMicro },
        })
      : d;
  },
  fill: (market: MarketRecord, now: Date): Decision<FillQuote> =>
    decideBuyFill(market, t.side, t.amountMicro, t.limit, now),
  release: (): EntryDraft => ({
    kind: 'release',
    tradeId: t.id,
    agent: { balanceMicro: t.amountMicro, reservedMicro: -t.amountMicro },
  }),
  settle: (fill: Pick<FillQuote, 'sharesMicro'>): EntryDraft => ({
    kind: 'buy',
    tradeId: t.id,
    agent: { reservedMicro: -t.amountMicro, tradesCount: 1, simTradesCount: 1 },
    position: {
      [key(t.side).shares]: fill.sharesMicro,
      [key(t.side).cost]: t.amountMicro,
      statusAfter: 'open' as const,
      source: t.source,
    },
  }),
});

/** Sell `sharesMicro` of one side: shares (and their cost basis) reserved, the book filled, cash and P&L booked. */
export const sellSteps = (t: SimTradeSpec, marketResolved: boolean) => {
  const k = key(t.side);
  const n = t.sharesMicro;
  return {
    reserve: (agent: AgentRecord, position: PositionRecord | null): Decision<EntryDraft> => {
      const d = decideSellReserve(agent, position, t.side, n, marketResolved);
      if (!d.ok) return d;
      return accept({
        kind: 'reserve-shares',
        tradeId: t.id,
        position: { [k.shares]: -n, [k.cost]: -d.value.costMicro, [k.reserved]: n },
      });
    },
    fill: (market: MarketRecord, now: Date): Decision<FillQuote> =>
      decideSellFill(market, t.side, n, t.limit, now),
    /** `removedCostMicro`: the cost basis the reservation took off. */
    release: (removedCostMicro: number): EntryDraft => ({
      kind: 'release-shares',
      tradeId: t.id,
      position: { [k.shares]: n, [k.cost]: removedCostMicro, [k.reserved]: -n },
    }),
    /** `position`: as of the entry before this one (after the reservation). */
    settle: (
      fill: Pick<FillQuote, 'amountMicro'>,
      removedCostMicro: number,
      position: PositionRecord | null,
    ): EntryDraft => {
      const emptyAfter =
        position !== null &&
        position.sharesYesMicro === 0 &&
        position.sharesNoMicro === 0 &&
        position.reservedYesMicro + position.reservedNoMicro - n === 0;
      return {
        kind: 'sell',
        tradeId: t.id,
        agent: {
          balanceMicro: fill.amountMicro,
          realizedPnlMicro: fill.amountMicro - removedCostMicro,
          tradesCount: 1,
          simTradesCount: 1,
        },
        position: {
          [k.reserved]: -n,
          realizedPnlMicro: fill.amountMicro - removedCostMicro,
          statusAfter: emptyAfter ? ('closed' as const) : null,
          source: t.source,
        },
      };
    },
  };
};

/** The cost basis a sell's reservation took off (its entry's delta, negated). */
export const removedCost = (reserve: { position?: object | null }, side: Outcome) =>
  -((reserve.position as Partial<Record<string, number>> | null | undefined)?.[key(side).cost] ?? 0);
