import type { TradeRecord } from './clob-records.js';
import { bytes32, sha256Hex } from './ids.js';
import type { MarketRecord } from './model.js';
import type { Side } from './order-verify.js';
import type { PublicTape, TapeFill } from './public-tape.js';
import { CROWD_SIZE, movePrints } from '../move-prints.js';
import type { MatchLeg, OnChainMatch } from '../polygon/exchange-settlement.js';
import { costOf } from './matching.js';
import { toUnits } from './wallet-ledger.js';

// What lands on the public tape (public-tape.ts), from the two things that trade on the emulator:
// the emulated crowd, whose trades are what moved a price, and orders matched on the emulated CLOB
// (ours included), each with its trade's transaction hash. Both also go on the emulated chain
// as the exchange's fill events (../polygon/exchange-settlement.ts), when `settle` is given: the
// print then carries that transaction's hash.

/** Puts a match on the chain and returns its transaction hash. */
export type Settle = (m: OnChainMatch) => string;

const flip = (s: Side): Side => (s === 'BUY' ? 'SELL' : 'BUY');
const ADJECTIVES = ['Brisk', 'Quiet', 'Lucky', 'Amber', 'Bold', 'Calm', 'Swift', 'Grim'];
const NOUNS = ['Otter', 'Harbor', 'Falcon', 'Meadow', 'Comet', 'Lantern', 'Badger', 'Summit'];

/** The address of emulated trader `i`: stable, so the same crowd trades on every market. */
export function crowdWallet(i: number): string {
  return `0x${sha256Hex(`crowd:${i}`).slice(0, 40)}`;
}
const CROWD = new Set(Array.from({ length: CROWD_SIZE }, (_, i) => crowdWallet(i)));

/**
 * The public profile the Data API joins to a trade row. Every wallet has a generated pseudonym
 * (as on Polymarket); only the emulated crowd has a chosen name, a bio and a picture.
 */
export function traderProfile(wallet: string) {
  const h = sha256Hex(`profile:${wallet.toLowerCase()}`);
  const pseudonym = `${ADJECTIVES[parseInt(h.slice(0, 2), 16) % ADJECTIVES.length]}-${NOUNS[parseInt(h.slice(2, 4), 16) % NOUNS.length]}`;
  const crowd = CROWD.has(wallet.toLowerCase());
  const image = crowd
    ? `https://polymarket-upload.s3.us-east-2.amazonaws.com/profile-${h.slice(0, 12)}.png`
    : '';
  return {
    name: crowd ? pseudonym.toLowerCase().replace('-', '') : '',
    pseudonym,
    bio: crowd ? 'Emulated trader.' : '',
    profileImage: image,
    profileImageOptimized: image,
  };
}

/**
 * The crowd's trades behind an admin price move of `m` from `fromYes` to its current price, all at
 * `nowSec` (a real tape never backdates: a recorder that already read this second must not miss them).
 * `seed` makes them reproducible; the move's index in the market's history tells moves apart.
 */
export function printPriceMove(
  tape: PublicTape,
  m: MarketRecord,
  fromYes: number,
  nowSec: number,
  seed: string,
  settle?: Settle,
): TapeFill[] {
  const seedText = `${seed}:${m.conditionId}:${m.moves.length}`;
  const prints = movePrints(seedText, { from: fromYes, to: m.price, tick: m.tick, wholeShares: false });
  return prints.map((p, i) => {
    const price = Number((p.onNo ? 1 - p.yesPrice : p.yesPrice).toFixed(6));
    // Buying NO is selling YES: the taker's side on its own token is the YES side flipped.
    const side = p.onNo ? flip(p.yesSide) : p.yesSide;
    return printOffBookFill(
      tape,
      m,
      {
        outcomeIndex: p.onNo ? 1 : 0,
        taker: crowdWallet(p.trader),
        maker: crowdWallet((p.trader + 1 + i) % CROWD_SIZE),
        side,
        shares: p.shares,
        price,
        idText: `${seedText}:${i}`,
      },
      nowSec,
      settle,
    );
  });
}

/** A fill between two wallets outside the emulated CLOB's book (the crowd's, or one an admin asked for). */
export interface OffBookFill {
  outcomeIndex: number;
  /** The taker's and the maker's wallets (lower-case). */
  taker: string;
  maker: string;
  /** The taker's side on the traded token. */
  side: Side;
  shares: number;
  /** Price of the traded token. */
  price: number;
  /** Stable text the fill's ids derive from. */
  idText: string;
}

/**
 * Prints `f` on the public tape at `nowSec` and, with `settle`, puts it on the chain (its print
 * then carries that transaction's hash). Balances do not move: like the crowd's trades, it is a
 * trade between others that the emulated venue only shows.
 */
export function printOffBookFill(
  tape: PublicTape,
  m: MarketRecord,
  f: OffBookFill,
  nowSec: number,
  settle?: Settle,
): TapeFill {
  const tokenId = m.tokenIds[f.outcomeIndex] as string;
  const id = bytes32(`crowd-tx:${f.idText}`);
  const shares = toUnits(f.shares);
  const cost = costOf(shares, BigInt(Math.round(f.price * 1e6)));
  const leg = (wallet: string, side: Side, role: string): MatchLeg => ({
    orderHash: bytes32(`crowd-order:${f.idText}:${role}`),
    wallet,
    side,
    shares,
    cost,
    fee: 0n,
  });
  const match: OnChainMatch = {
    id,
    tokenId,
    negRisk: m.negRisk,
    taker: leg(f.taker, f.side, 'taker'),
    makers: [leg(f.maker, flip(f.side), 'maker')],
  };
  return tape.add({
    conditionId: m.conditionId,
    tokenId,
    outcomeIndex: f.outcomeIndex,
    timestampSec: nowSec,
    taker: { wallet: f.taker, side: f.side, shares: f.shares, price: f.price },
    makers: [{ wallet: f.maker, side: flip(f.side), shares: f.shares, price: f.price }],
    transactionHash: settle ? settle(match) : id,
    clobTradeId: undefined,
  });
}

/** A trade matched on the emulated CLOB, as the chain (and so the Data API) sees it. */
export function printClobTrade(tape: PublicTape, trade: TradeRecord, outcomeIndex: number): TapeFill {
  const shares = Number(trade.shares) / 1e6;
  return tape.add({
    conditionId: trade.conditionId,
    tokenId: trade.tokenId,
    outcomeIndex,
    timestampSec: Math.floor(trade.matchMs / 1000),
    taker: {
      wallet: trade.takerMaker.toLowerCase(),
      side: trade.side,
      shares,
      // The taker's average price over the levels it walked, floored to the micro-unit.
      price: trade.shares > 0n ? Number((trade.notional * 1_000_000n) / trade.shares) / 1e6 : 0,
    },
    makers: trade.makers.map((mk) => ({
      wallet: mk.makerAddress.toLowerCase(),
      side: mk.side,
      shares: Number(mk.shares) / 1e6,
      price: Number(mk.priceMicro) / 1e6,
    })),
    transactionHash: trade.transactionHash,
    clobTradeId: trade.id,
  });
}

/** A CLOB trade as the exchange settles it: the taker order against each maker order it hit. */
export function matchOfTrade(trade: TradeRecord, negRisk: boolean): OnChainMatch {
  return {
    id: `0x${sha256Hex(`tx:${trade.id}`)}`,
    tokenId: trade.tokenId,
    negRisk,
    taker: {
      orderHash: trade.takerOrderId,
      wallet: trade.takerMaker,
      side: trade.side,
      shares: trade.shares,
      cost: trade.notional,
      fee: trade.fee,
    },
    makers: trade.makers.map((mk) => ({
      orderHash: mk.orderId,
      wallet: mk.makerAddress,
      side: mk.side,
      shares: mk.shares,
      cost: costOf(mk.shares, mk.priceMicro),
      fee: 0n,
    })),
  };
}
