import { ATOMIC, SETTLEMENT_MINTS } from '../constants.js';
import { ONE_DOLLAR, pipsToAtomic, type MarketRecord, type Pips } from '../model.js';
import { routeNotFound, DflowError } from './errors.js';
import { marketAccounts, type OutcomeMint, type Side } from './mints.js';

// How `/order` turns (inputMint, outputMint, amount) into a priced order (kalshi.md §2.3, §5.2):
// buys pay the ask for whole contracts only and get the rest back; sells receive the bid for any
// amount of tokens; a winning side of a determined/finalized market with redemption open is
// redeemed at $1 (or the scalar payout), without needing an active market.

export type Action = 'buy' | 'sell' | 'redeem';

export interface PricedOrder {
  ticker: string;
  action: Action;
  side: Side;
  settlementMint: string;
  inputMint: string;
  outputMint: string;
  /** Atomic input the user puts in (USDC for buys, outcome tokens for sells). */
  inAmount: bigint;
  /** Atomic output expected (outcome tokens for buys, USDC for sells). */
  outAmount: bigint;
  /** Part of the input actually spent on a buy (the rest is refunded as a revert). */
  spend: bigint;
  price: Pips;
}

export const sideAsk = (m: MarketRecord, side: Side): Pips | null =>
  side === 'yes' ? m.yesAsk : m.yesBid === null ? null : ONE_DOLLAR - m.yesBid;
export const sideBid = (m: MarketRecord, side: Side): Pips | null =>
  side === 'yes' ? m.yesBid : m.yesAsk === null ? null : ONE_DOLLAR - m.yesAsk;

/** What one winning contract pays, or null when this side cannot be redeemed now. */
function redemptionPrice(m: MarketRecord, side: Side): Pips | null {
  if (!['determined', 'finalized'].includes(m.status) || m.redemptionStatus !== 'open') return null;
  if (m.scalarOutcomePct !== null && (m.result === '' || m.result === 'scalar')) {
    const yes = m.scalarOutcomePct; // basis points of $1 = pips
    return side === 'yes' ? yes : ONE_DOLLAR - yes;
  }
  if (m.result === 'yes' || m.result === 'no') return m.result === side ? ONE_DOLLAR : 0;
  return null;
}

export function priceOrder(
  market: MarketRecord,
  outcome: OutcomeMint,
  direction: 'buy' | 'sell',
  amount: bigint,
): PricedOrder {
  const { side, settlementMint } = outcome;
  const mints = marketAccounts(market.ticker, settlementMint);
  const outcomeMint = side === 'yes' ? mints.yesMint : mints.noMint;
  const base = {
    ticker: market.ticker,
    side,
    settlementMint,
    inputMint: direction === 'buy' ? settlementMint : outcomeMint,
    outputMint: direction === 'buy' ? outcomeMint : settlementMint,
    inAmount: amount,
  };
  if (!SETTLEMENT_MINTS.includes(settlementMint as (typeof SETTLEMENT_MINTS)[number]))
    throw routeNotFound('unknown settlement mint');
  if (!market.dflowInitialized && market.status !== 'active') throw routeNotFound('market is not tokenized');

  if (direction === 'sell') {
    const redeem = redemptionPrice(market, side);
    if (redeem !== null) {
      const out = (amount * pipsToAtomic(redeem)) / ATOMIC;
      if (out === 0n) throw new DflowError(400, 'zero_out_amount', 'The output amount is zero');
      return { ...base, action: 'redeem', outAmount: out, spend: amount, price: redeem };
    }
    if (market.status !== 'active') throw routeNotFound(`market is ${market.status}`);
    const bid = sideBid(market, side);
    if (bid === null || bid === 0) throw routeNotFound('no liquidity');
    const out = (amount * pipsToAtomic(bid)) / ATOMIC;
    if (out === 0n) throw new DflowError(400, 'zero_out_amount', 'The output amount is zero');
    return { ...base, action: 'sell', outAmount: out, spend: amount, price: bid };
  }

  if (market.status !== 'active') throw routeNotFound(`market is ${market.status}`);
  const ask = sideAsk(market, side);
  if (ask === null || ask >= ONE_DOLLAR) throw routeNotFound('no liquidity');
  const perContract = pipsToAtomic(ask);
  const contracts = amount / perContract;
  // Whole contracts only: less than one contract's worth cannot be routed.
  if (contracts === 0n) throw routeNotFound('amount buys less than one contract');
  return {
    ...base,
    action: 'buy',
    outAmount: contracts * ATOMIC,
    spend: contracts * perContract,
    price: ask,
  };
}
