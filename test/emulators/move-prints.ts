import { createHash } from 'node:crypto';
import { prng } from '../../shared/util/prng.js';

// The trades other people make while a venue's price moves. An emulator's price only moves when a
// test (or the offline demo) says so, but on a real venue a move is the trace of trades: takers
// walking the book from the old price to the new one. Both emulators print such trades on their
// public tapes, so a tape recorder sees prints that agree with the price history. Deterministic:
// the same seed text gives the same prints, on every run.

/** One trade of the crowd during a move, in YES terms (each emulator renders its venue's wire). */
export interface MovePrint {
  /** YES price of the trade, on the tick grid. */
  yesPrice: number;
  /** Shares (contracts): whole numbers, or 2 decimals where the venue trades fractions. */
  shares: number;
  /** The taker pushed YES up (bought YES or sold NO) or down. */
  yesSide: 'BUY' | 'SELL';
  /** The taker traded the NO outcome rather than YES (where the venue has an instrument per outcome). */
  onNo: boolean;
  /** Which emulated trader took it: an index into the venue's crowd, in [0, CROWD_SIZE). */
  trader: number;
}

export const CROWD_SIZE = 40;
/** A move prints between 1 and this many trades: enough to look like a book being walked. */
const MAX_PRINTS_PER_MOVE = 6;
const NO_SHARE = 0.3;

export interface MoveSpec {
  /** YES price before and after the move. */
  from: number;
  to: number;
  tick: number;
  wholeShares: boolean;
}

/** The trades that took YES from `from` to `to`: the last one prints at the new price. */
export function movePrints(seedText: string, move: MoveSpec): MovePrint[] {
  const rand = prng(Number.parseInt(createHash('sha256').update(seedText).digest('hex').slice(0, 8), 16));
  const ticks = Math.round(Math.abs(move.to - move.from) / move.tick);
  const count = Math.min(MAX_PRINTS_PER_MOVE, 1 + Math.ceil(ticks / 2));
  const direction =
    move.to === move.from ? (rand() < 0.5 ? 'BUY' : 'SELL') : move.to > move.from ? 'BUY' : 'SELL';
  const out: MovePrint[] = [];
  for (let i = 1; i <= count; i++) {
    const path = move.from + ((move.to - move.from) * i) / count;
    // Small sizes are common and large ones rare, like a real tape.
    const raw = 5 + rand() ** 2 * 495;
    out.push({
      yesPrice: onTick(path, move.tick),
      shares: move.wholeShares ? Math.round(raw) : Math.round(raw * 100) / 100,
      yesSide: direction,
      onNo: rand() < NO_SHARE,
      trader: Math.floor(rand() * CROWD_SIZE),
    });
  }
  return out;
}

function onTick(x: number, tick: number): number {
  const clamped = Math.min(Math.max(x, tick), 1 - tick);
  return Number((Math.round(clamped / tick) * tick).toFixed(6));
}
