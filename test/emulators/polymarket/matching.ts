import type { ClobOrder } from './clob-records.js';
import type { Side } from './order-verify.js';
import { UNIT } from './wallet-ledger.js';

// Price-time matching of one taker against the liquidity opposite it: the emulator's synthetic
// book (the "house", see book.ts) and other users' resting orders on the same token. Pure: it
// plans fills and says whether the taker was satisfied; exchange.ts applies the plan. Fills happen
// at the resting side's price, so a taker that crosses deeper than it needs gets price improvement.

export interface Liquidity {
  priceMicro: bigint;
  shares: bigint;
  /** A user's resting order, or undefined for the house book level at this price. */
  order: ClobOrder | undefined;
}

export interface Fill {
  source: Liquidity;
  shares: bigint;
  priceMicro: bigint;
  /** pUSD for these shares, rounded down to the base unit. */
  cost: bigint;
}

export interface Plan {
  fills: Fill[];
  shares: bigint;
  cost: bigint;
  /** The taker got all it asked for (shares, or its whole pUSD budget for market buys). */
  complete: boolean;
}

export interface Taker {
  side: Side;
  /** Limit price as an exact ratio (pUSD per share). */
  limitNum: bigint;
  limitDen: bigint;
  /** Share-bound takers: shares still wanted/offered. */
  shares: bigint;
  /** Amount-bound takers (market BUY): pUSD still to spend; undefined for share-bound. */
  budget: bigint | undefined;
}

/** pUSD for `shares` at `priceMicro`, rounded up: a fill never moves a share for free. */
export const costOf = (shares: bigint, priceMicro: bigint): bigint =>
  (shares * priceMicro + UNIT - 1n) / UNIT;

/** Whether a level at `priceMicro` is acceptable to a taker with this limit. */
export function acceptable(side: Side, priceMicro: bigint, limitNum: bigint, limitDen: bigint): boolean {
  return side === 'BUY' ? priceMicro * limitDen <= limitNum * UNIT : priceMicro * limitDen >= limitNum * UNIT;
}

/** Best price first; at equal prices resting orders (oldest first) before the house. */
export function sortLiquidity(side: Side, sources: Liquidity[]): Liquidity[] {
  return [...sources].sort((a, b) => {
    if (a.priceMicro !== b.priceMicro) {
      const cheaper = a.priceMicro < b.priceMicro ? -1 : 1;
      return side === 'BUY' ? cheaper : -cheaper;
    }
    if (!a.order !== !b.order) return a.order ? -1 : 1;
    return (a.order?.seq ?? 0) - (b.order?.seq ?? 0);
  });
}

export function plan(taker: Taker, sources: Liquidity[]): Plan {
  const fills: Fill[] = [];
  let shares = taker.shares;
  let budget = taker.budget;
  let budgetSpent = false;
  for (const source of sortLiquidity(taker.side, sources)) {
    if (!acceptable(taker.side, source.priceMicro, taker.limitNum, taker.limitDen)) break;
    if (source.shares <= 0n) continue;
    let take: bigint;
    if (budget !== undefined) {
      // What the budget buys at this price; once that is no more than the level holds, the
      // leftover (< one base unit of shares at this or any later price) is spent.
      const affordable = (budget * UNIT) / source.priceMicro;
      budgetSpent = affordable <= source.shares;
      take = budgetSpent ? affordable : source.shares;
    } else {
      take = shares < source.shares ? shares : source.shares;
    }
    if (take > 0n) {
      const cost = costOf(take, source.priceMicro);
      fills.push({ source, shares: take, priceMicro: source.priceMicro, cost });
      if (budget !== undefined) budget -= cost;
      else shares -= take;
    }
    if (budgetSpent || (budget === undefined && shares === 0n)) break;
  }
  return {
    fills,
    shares: fills.reduce((s, f) => s + f.shares, 0n),
    cost: fills.reduce((s, f) => s + f.cost, 0n),
    complete: fills.length > 0 && (budget !== undefined ? budgetSpent : shares === 0n),
  };
}
