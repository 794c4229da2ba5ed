/**
 * The decisions of a sim trade as pure functions of the state they apply to. The sim engine's plan
 * (sim-plan.ts, through the steps of sim-trade-steps.ts) calls them in memory on the heads it read,
 * each on the state the steps before it left, and a dry run plans the same way on the current
 * state: a dry-run quote is what a live trade at that state fills at. A decision on a state another
 * writer changed meanwhile is never written: its record's sequence number is taken, and the engine
 * plans again (sim-commit.ts).
 */
import { agentSuspended } from '../../agents/agent-refusals.js';
import type { AgentRecord } from '../../agents/agent.model.js';
import type { MarketEventDraft } from '../../markets/market-log.js';
import type { MarketRecord } from '../../markets/market.model.js';
import { fromMicro, MICRO } from '../../money.js';
import type { PositionRecord } from '../../positions/position.model.js';
import { accept, refuse, type Decision, type Refusal } from '../../refusal.js';
import { price, withShares, type Outcome } from '../../markets/lmsr.js';
import { bookState } from '../../markets/sim-book.js';
import { saleProceedsMicro, sharesBoughtMicro } from '../../markets/fill-rounding.js';
import { resolutionLabel } from '../../markets/resolution.js';

const money = (micro: number) => fromMicro(micro).toFixed(2);
const shares = (micro: number) => fromMicro(micro).toFixed(5);

export const REFUSALS = {
  suspended: agentSuspended,
  broke: (): Refusal => ({
    error: 'Agent balance is zero. Register a new agent to continue trading.',
    errorCode: 'agent_broke',
    retryable: false,
    hint: 'Register a new agent with POST /api/sdk/agents/register.',
    category: 'agent',
  }),
  insufficientBalance: (needMicro: number, haveMicro: number): Refusal => ({
    error: `Insufficient balance: this buy needs ${money(needMicro)} $SIM but the available balance is ${money(haveMicro)} $SIM.`,
    errorCode: 'insufficient_balance',
    retryable: false,
    hint: 'Buy with a smaller amount, or sell a position first.',
    category: 'balance',
  }),
  insufficientShares: (side: Outcome, wantMicro: number, haveMicro: number, resolved: boolean): Refusal => ({
    error: `Insufficient shares to sell: tried to sell ${shares(wantMicro)} ${side.toUpperCase()} shares but only ${shares(haveMicro)} are available.`,
    errorCode: 'insufficient_shares',
    retryable: false,
    hint: resolved
      ? 'The market is resolved: winning shares are paid out automatically on sim, so there is nothing to sell.'
      : `Refresh your share count with GET /api/sdk/positions (it may be stale), and check the side: you hold ${side === 'yes' ? 'NO' : 'YES'} shares if this side shows none.`,
    category: 'shares',
  }),
  marketNotActive: (market: MarketRecord): Refusal => ({
    error:
      market.status === 'resolved'
        ? `Market is resolved (outcome: ${resolutionLabel(market)}); it no longer trades.`
        : 'Market is closed for trading.',
    errorCode: market.status === 'resolved' ? 'market_resolved' : 'market_closed',
    retryable: false,
    hint:
      market.status === 'resolved'
        ? 'Winning sim shares are paid out automatically at resolution; see GET /api/sdk/positions.'
        : 'Pick an active market from GET /api/sdk/markets.',
    category: 'market',
  }),
  pastResolutionTime: (market: MarketRecord): Refusal => ({
    error: `Market is closed for trading since ${market.resolvesAt!.toISOString()}: it reached its resolution time and awaits resolution.`,
    errorCode: 'market_closed',
    retryable: false,
    hint: 'Sim catalogue markets stop trading at resolves_at; pick an active market from GET /api/sdk/markets.',
    category: 'market',
  }),
  limitNotMet: (side: Outcome, action: 'buy' | 'sell', avg: number, limit: number): Refusal => ({
    error: `Limit price not met: the average ${action} price for ${side.toUpperCase()} would be ${avg.toFixed(4)}, ${action === 'buy' ? 'above' : 'below'} your limit ${limit}. Not filled.`,
    errorCode: 'limit_not_met',
    retryable: true,
    hint: 'Trade a smaller size, or move the limit; the sim book fills at once or not at all.',
    category: 'price',
  }),
  tooSmall: (): Refusal => ({
    error: 'Trade too small: it would fill less than 0.00001 shares or pay less than 0.000001 $SIM.',
    errorCode: 'trade_too_small',
    retryable: false,
    hint: 'Increase the amount or the number of shares.',
    category: 'price',
  }),
};

/** Agent-level checks before any buy: status, then cash. */
export function decideBuyReserve(agent: AgentRecord, amountMicro: number): Decision<{ amountMicro: number }> {
  if (agent.status === 'suspended') return refuse(REFUSALS.suspended());
  if (agent.status === 'broke') return refuse(REFUSALS.broke());
  if (agent.balanceMicro < amountMicro)
    return refuse(REFUSALS.insufficientBalance(amountMicro, agent.balanceMicro));
  return accept({ amountMicro });
}

export interface SellReservation {
  sharesMicro: number;
  /** The part of the cost basis these shares carry (average cost), removed from the position. */
  costMicro: number;
}

/** Position-level checks before a sell: status, then shares available (not already being sold). */
export function decideSellReserve(
  agent: AgentRecord,
  position: PositionRecord | null,
  side: Outcome,
  sharesMicro: number,
  marketResolved: boolean,
): Decision<SellReservation> {
  if (agent.status === 'suspended') return refuse(REFUSALS.suspended());
  const held = position ? (side === 'yes' ? position.sharesYesMicro : position.sharesNoMicro) : 0;
  if (held < sharesMicro) return refuse(REFUSALS.insufficientShares(side, sharesMicro, held, marketResolved));
  const cost = position ? (side === 'yes' ? position.costYesMicro : position.costNoMicro) : 0;
  // Integer average-cost arithmetic in BigInt: cost × shares can exceed 2^53.
  const costMicro = Number((BigInt(cost) * BigInt(sharesMicro)) / BigInt(held));
  return accept({ sharesMicro, costMicro });
}

export type FillQuote = MarketEventDraft;

/**
 * Why the book takes no trade now, if it does not: not active, or a sim catalogue market past its
 * resolution time (imported markets close when their venue closes them, not by the clock).
 */
function closedFor(market: MarketRecord, now: Date): Refusal | null {
  if (market.status !== 'active') return REFUSALS.marketNotActive(market);
  if (market.importSource === 'sim' && market.resolvesAt && market.resolvesAt <= now)
    return REFUSALS.pastResolutionTime(market);
  return null;
}

/** A buy of `amountMicro` on the book: shares rounded down to the share step, so the house keeps the dust. */
export function decideBuyFill(
  market: MarketRecord,
  side: Outcome,
  amountMicro: number,
  limit: number | null,
  now: Date,
): Decision<FillQuote> {
  const closed = closedFor(market, now);
  if (closed) return refuse(closed);
  const state = bookState(market);
  const sharesMicro = sharesBoughtMicro(state, side, amountMicro);
  if (sharesMicro <= 0) return refuse(REFUSALS.tooSmall());
  const avg = amountMicro / sharesMicro;
  if (limit !== null && avg > limit) return refuse(REFUSALS.limitNotMet(side, 'buy', avg, limit));
  const after = withShares(state, side, sharesMicro / MICRO);
  return accept({
    kind: 'fill',
    side,
    action: 'buy',
    sharesMicro,
    amountMicro,
    priceBefore: price(state, 'yes'),
    priceAfter: price(after, 'yes'),
    outcome: null,
  });
}

/** A sell of `sharesMicro` into the book: proceeds rounded down to the micro-unit. */
export function decideSellFill(
  market: MarketRecord,
  side: Outcome,
  sharesMicro: number,
  limit: number | null,
  now: Date,
): Decision<FillQuote> {
  const closed = closedFor(market, now);
  if (closed) return refuse(closed);
  const state = bookState(market);
  const amountMicro = saleProceedsMicro(state, side, sharesMicro);
  if (amountMicro <= 0) return refuse(REFUSALS.tooSmall());
  const avg = amountMicro / sharesMicro;
  if (limit !== null && avg < limit) return refuse(REFUSALS.limitNotMet(side, 'sell', avg, limit));
  const after = withShares(state, side, -sharesMicro / MICRO);
  return accept({
    kind: 'fill',
    side,
    action: 'sell',
    sharesMicro,
    amountMicro,
    priceBefore: price(state, 'yes'),
    priceAfter: price(after, 'yes'),
    outcome: null,
  });
}
