import type { Side } from './order-verify.js';

// The record behind the Data API's public trades (`GET /trades`): every fill of a market, by the
// emulated crowd when a price moves and by orders matched on the emulated CLOB. Like model.ts it
// is not the wire shape (routes/data.ts renders the camelCase rows). Memory is bounded: a market
// keeps its newest `capPerMarket` fills and drops the oldest, as a long-running demo would
// otherwise grow without end (the real API cannot page past offset 10,000 either).

/** One side of a fill: who, which way on the traded token, how much, at what price. */
export interface TapeParty {
  /** Lower-case address (proxy / Safe / deposit wallet, or an emulated trader). */
  wallet: string;
  side: Side;
  shares: number;
  /** Price of the traded token (not YES-normalised: the Data API reports the token's own). */
  price: number;
}

export interface TapeFill {
  /** Tape-wide order of recording: newest first is highest first. */
  seq: number;
  conditionId: string;
  tokenId: string;
  outcomeIndex: number;
  timestampSec: number;
  taker: TapeParty;
  makers: TapeParty[];
  transactionHash: string;
  /** The CLOB trade behind a fill of an emulator order: its rows disappear if that trade FAILS. */
  clobTradeId: string | undefined;
}

export const TAPE_CAP_PER_MARKET = 2_000;

export class PublicTape {
  private readonly byMarket = new Map<string, TapeFill[]>();
  private seq = 0;

  constructor(readonly capPerMarket = TAPE_CAP_PER_MARKET) {}

  add(fill: Omit<TapeFill, 'seq'>): TapeFill {
    const key = fill.conditionId.toLowerCase();
    const fills = this.byMarket.get(key) ?? [];
    const recorded = { ...fill, seq: ++this.seq };
    fills.push(recorded);
    if (fills.length > this.capPerMarket) fills.splice(0, fills.length - this.capPerMarket);
    this.byMarket.set(key, fills);
    return recorded;
  }

  /** Fills of these markets (every market when none is named), newest first. */
  newestFirst(conditionIds: string[] = []): TapeFill[] {
    const lists =
      conditionIds.length > 0
        ? conditionIds.map((id) => this.byMarket.get(id.toLowerCase()) ?? [])
        : [...this.byMarket.values()];
    return lists.flat().sort((a, b) => b.seq - a.seq);
  }

  /** A market gone from the catalogue (a rolled-off fast market) takes its fills with it. */
  forget(conditionId: string): void {
    this.byMarket.delete(conditionId.toLowerCase());
  }

  reset(): void {
    this.byMarket.clear();
    this.seq = 0;
  }
}
