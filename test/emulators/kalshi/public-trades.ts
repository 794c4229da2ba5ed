import type { DflowOrder } from './dflow/desk.js';
import { ONE_DOLLAR, type MarketRecord, type Pips } from './model.js';
import { movePrints } from '../move-prints.js';
import { uuidFrom } from '../polymarket/ids.js';

// Kalshi's public trades tape (`GET /markets/trades`, kalshi.md §1.2): the emulated crowd's trades
// as an admin moves a price, and the Kalshi side of every DFlow order the liquidity provider
// fills. Kalshi publishes no parties, only which side the taker bought. Records, not wire
// (kalshi-wire.ts renders them); each market keeps its newest `capPerMarket` trades.

export interface KalshiTrade {
  /** Tape-wide order of recording: newest first is highest first (the cursor's key). */
  seq: number;
  tradeId: string;
  ticker: string;
  /** Contracts, 2 decimals at most. */
  count: number;
  yesPrice: Pips;
  /** Every Kalshi trade is a YES buyer against a NO buyer: which of the two took liquidity. */
  takerSide: 'yes' | 'no';
  createdMs: number;
}

export const TAPE_CAP_PER_MARKET = 2_000;

export class KalshiTape {
  private readonly byTicker = new Map<string, KalshiTrade[]>();
  /** Price moves seen per market: the seed of a move's prints, so replays print the same. */
  private readonly moves = new Map<string, number>();
  private seq = 0;

  constructor(readonly capPerMarket = TAPE_CAP_PER_MARKET) {}

  add(t: Omit<KalshiTrade, 'seq' | 'tradeId'>): KalshiTrade {
    const seq = ++this.seq;
    const trade = { ...t, seq, tradeId: uuidFrom(`kalshi-trade:${t.ticker}:${seq}:${t.createdMs}`) };
    const list = this.byTicker.get(t.ticker) ?? [];
    list.push(trade);
    if (list.length > this.capPerMarket) list.splice(0, list.length - this.capPerMarket);
    this.byTicker.set(t.ticker, list);
    return trade;
  }

  /** Trades of one market (every market without a ticker), newest first. */
  newestFirst(ticker?: string): KalshiTrade[] {
    const lists = ticker === undefined ? [...this.byTicker.values()] : [this.byTicker.get(ticker) ?? []];
    return lists.flat().sort((a, b) => b.seq - a.seq);
  }

  /** The index of a new price move of `ticker` (0 for its first). */
  nextMove(ticker: string): number {
    const n = this.moves.get(ticker) ?? 0;
    this.moves.set(ticker, n + 1);
    return n;
  }

  reset(): void {
    this.byTicker.clear();
    this.moves.clear();
    this.seq = 0;
  }
}

/** The crowd's trades that took `m`'s last price from `fromYes` to where it is now, at `nowMs`. */
export function printPriceMove(
  tape: KalshiTape,
  m: MarketRecord,
  fromYes: Pips,
  nowMs: number,
  seed: string,
) {
  const seedText = `${seed}:${m.ticker}:${tape.nextMove(m.ticker)}`;
  const prints = movePrints(seedText, {
    from: fromYes / ONE_DOLLAR,
    to: m.lastPrice / ONE_DOLLAR,
    tick: 0.01,
    wholeShares: true,
  });
  return prints.map((p) =>
    tape.add({
      ticker: m.ticker,
      count: p.shares,
      yesPrice: Math.round(p.yesPrice * ONE_DOLLAR),
      // Pushing YES up is buying YES; pushing it down is buying NO.
      takerSide: p.yesSide === 'BUY' ? 'yes' : 'no',
      createdMs: nowMs,
    }),
  );
}

/**
 * The Kalshi trade behind a filled DFlow buy or sell of `contracts`. Selling YES is buying NO on
 * Kalshi (and selling NO buying YES); `o.price` is the price of the side the order traded.
 */
export function printDflowFill(tape: KalshiTape, o: DflowOrder, contracts: number, nowMs: number) {
  const buysYes = (o.action === 'buy') === (o.side === 'yes');
  return tape.add({
    ticker: o.ticker,
    count: Math.round(contracts * 100) / 100,
    yesPrice: o.side === 'yes' ? o.price : ONE_DOLLAR - o.price,
    takerSide: buysYes ? 'yes' : 'no',
    createdMs: nowMs,
  });
}
