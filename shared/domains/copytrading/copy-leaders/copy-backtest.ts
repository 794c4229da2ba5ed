/**
 * The copy backtest behind the copy leaders: what a follower would have made copying each wallet's
 * trades over a window of recorded fills, after the venue's taker fee and a slippage model. Pure:
 * the refresh job (refresh-copy-leaders.ts) reads the fills and the markets and stores the result.
 *
 * The model, per trade (leg) of a wallet on a market we know:
 * - The copy is a taker order placed COPY_DELAY_SECONDS after the leader's fill. It pays the worse
 *   of the leader's price and the market's price then (its last recorded fill by that time, any
 *   wallet's: the leader's own when nobody traded since), plus half a tick (HALF_TICK) for crossing
 *   the spread: a buy pays more, a sale gets less. Slippage cost = |copy price − leader price| × shares.
 * - The venue's taker fee: `fee_rate_bps`/10,000 × min(c, 1 − c) per share at the copy's price c.
 * - A buy is copied with COPY_STAKE_USD; a sale sells the same fraction of the copy as the leader
 *   sold of what it bought inside the window (a sale of shares bought before the window is not
 *   copied: the follower holds none).
 * - What the copy still holds at the window's end is worth its market's payout when the market has
 *   resolved, else the last recorded price of its outcome.
 */

export const COPY_STAKE_USD = 10;
export const COPY_DELAY_SECONDS = 30;
export const HALF_TICK = 0.005;
/** Copy prices stay inside the venue's price range. */
const MIN_PRICE = 0.001;
const MAX_PRICE = 0.999;

/** One leg of one fill, as the backtest reads it (a stored venue fill, reduced). */
export interface CopyFill {
  wallet: string;
  /** The market it traded, our id (only fills of markets we know are read). */
  marketId: string;
  at: Date;
  action: 'buy' | 'sell';
  outcome: 'yes' | 'no';
  /** Price of the outcome traded. */
  price: number;
  shares: number;
}

/** What the backtest needs of a market. */
export interface CopyMarket {
  /** Lower-cased category, null when the market has none. */
  category: string | null;
  feeRateBps: number;
  /** What a YES share paid at the resolution, null while unresolved. */
  payoutYes: number | null;
}

export interface CopyResult {
  wallet: string;
  /** The follower's profit, USD: proceeds + what it still holds − what it paid (fees included). */
  pnlUsd: number;
  /** Slippage cost as a percent of the copies' value at the leader's prices. */
  slippageCostRatePct: number;
  /** The wallet's trades (legs) copied or considered in the window. */
  tradeCount: number;
}

const clampPrice = (p: number) => Math.min(MAX_PRICE, Math.max(MIN_PRICE, p));
const yesPriceOf = (f: Pick<CopyFill, 'outcome' | 'price'>) => (f.outcome === 'yes' ? f.price : 1 - f.price);
const outcomePrice = (yes: number, outcome: 'yes' | 'no') => (outcome === 'yes' ? yes : 1 - yes);

/** A market's recorded YES prices in time order, with the first at-or-after lookup. */
class PricePath {
  private readonly times: number[] = [];
  private readonly yes: number[] = [];
  add(at: number, yes: number) {
    this.times.push(at);
    this.yes.push(yes);
  }
  /** The YES price of the last fill at `at` or before, or null when none came by then. */
  lastUpTo(at: number): number | null {
    let lo = 0;
    let hi = this.times.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.times[mid]! <= at) lo = mid + 1;
      else hi = mid;
    }
    return lo > 0 ? this.yes[lo - 1]! : null;
  }
  get last(): number | null {
    return this.yes.length ? this.yes[this.yes.length - 1]! : null;
  }
}

interface Holding {
  /** Shares the leader bought inside the window and still holds. */
  leaderShares: number;
  /** The copy's shares. */
  copyShares: number;
}

interface WalletBook {
  cash: number;
  slippage: number;
  notional: number;
  trades: number;
  holdings: Map<string, Holding>;
}

/** The copy's price for a leg: the worse of the leader's and the market's price after the delay, plus half a tick. */
function copyPrice(leg: CopyFill, path: PricePath): number {
  const later = path.lastUpTo(leg.at.getTime() + COPY_DELAY_SECONDS * 1000);
  const market = later === null ? leg.price : outcomePrice(later, leg.outcome);
  return leg.action === 'buy'
    ? clampPrice(Math.max(leg.price, market) + HALF_TICK)
    : clampPrice(Math.min(leg.price, market) - HALF_TICK);
}

const takerFee = (m: CopyMarket, price: number, shares: number) =>
  (m.feeRateBps / 10_000) * Math.min(price, 1 - price) * shares;

/**
 * Runs the backtest over `fills` (every wallet's legs on the `markets` given, any order) and answers
 * one result per wallet that traded, for the markets `inScope` keeps (a category's, or all).
 */
export function backtestCopies(
  fills: readonly CopyFill[],
  markets: ReadonlyMap<string, CopyMarket>,
  inScope: (m: CopyMarket) => boolean = () => true,
): CopyResult[] {
  const ordered = [...fills].sort((a, b) => a.at.getTime() - b.at.getTime());
  const paths = new Map<string, PricePath>();
  for (const f of ordered) {
    let path = paths.get(f.marketId);
    if (!path) paths.set(f.marketId, (path = new PricePath()));
    path.add(f.at.getTime(), yesPriceOf(f));
  }

  const books = new Map<string, WalletBook>();
  for (const leg of ordered) {
    const market = markets.get(leg.marketId);
    if (!market || !inScope(market) || leg.shares <= 0) continue;
    let book = books.get(leg.wallet);
    if (!book) {
      book = { cash: 0, slippage: 0, notional: 0, trades: 0, holdings: new Map() };
      books.set(leg.wallet, book);
    }
    book.trades += 1;
    const key = `${leg.marketId}|${leg.outcome}`;
    const holding = book.holdings.get(key) ?? { leaderShares: 0, copyShares: 0 };
    book.holdings.set(key, holding);
    const price = copyPrice(leg, paths.get(leg.marketId)!);
    if (leg.action === 'buy') {
      const shares = COPY_STAKE_USD / price;
      book.cash -= COPY_STAKE_USD + takerFee(market, price, shares);
      book.slippage += (price - leg.price) * shares;
      book.notional += leg.price * shares;
      holding.leaderShares += leg.shares;
      holding.copyShares += shares;
      continue;
    }
    if (holding.leaderShares <= 0 || holding.copyShares <= 0) continue;
    const fraction = Math.min(1, leg.shares / holding.leaderShares);
    const shares = holding.copyShares * fraction;
    book.cash += price * shares - takerFee(market, price, shares);
    book.slippage += (leg.price - price) * shares;
    book.notional += leg.price * shares;
    holding.leaderShares = Math.max(0, holding.leaderShares - leg.shares);
    holding.copyShares -= shares;
  }

  const results: CopyResult[] = [];
  for (const [wallet, book] of books) {
    let held = 0;
    for (const [key, h] of book.holdings) {
      if (h.copyShares <= 0) continue;
      const [marketId, outcome] = key.split('|') as [string, 'yes' | 'no'];
      const m = markets.get(marketId)!;
      const yes = m.payoutYes ?? paths.get(marketId)?.last ?? null;
      if (yes !== null) held += outcomePrice(yes, outcome) * h.copyShares;
    }
    results.push({
      wallet,
      pnlUsd: book.cash + held,
      slippageCostRatePct: book.notional > 0 ? (100 * book.slippage) / book.notional : 0,
      tradeCount: book.trades,
    });
  }
  return results;
}
