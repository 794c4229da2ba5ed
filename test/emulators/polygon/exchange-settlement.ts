import { AbiCoder, isHexString, keccak256, toUtf8Bytes, Wallet, zeroPadValue } from 'ethers';
import { CONTRACTS } from '../polymarket/contracts.js';
import type { Side } from '../polymarket/order-verify.js';
import type { PolymarketState } from '../polymarket/state.js';
import { CTF_EXCHANGE_V2 } from './abi.js';
import type { PolygonChain } from './chain-state.js';
import { sendAsOperator } from './operator-tx.js';
import type { Call, EventLog, Outcome } from './tx-effects.js';

// Every match the emulator makes (an order matched on the emulated CLOB, a trade of the emulated
// crowd) goes on the emulated chain as Polymarket's operator puts it there: one transaction of the
// exchange operator to the market's V2 exchange (the Neg Risk one for neg-risk markets), mined by
// the chain's mining mode, whose receipt carries the exchange's events in the contract's order:
// one `OrderFilled` per maker order (its `taker` the taker order's maker), then the taker order's
// own `OrderFilled` (its `taker` the exchange) and `OrdersMatched` (ctf-exchange-v2
// `mixins/Trading.sol`). The ledger already moved when the match was made (the CLOB settles at
// match time), so the transaction only emits: its calldata names the match
// (`settleEmulatedMatch`, an emulator function, not the exchange's `matchOrders`), and the token
// Transfer events a real settlement also logs are not emitted.

/**
 * The operator signer that settles match `id`. Polymarket settles through several operator
 * accounts; here each match has its own, at nonce 0, so a match's transaction hash depends on the
 * match alone and a replayed seed (the crowd's prints after a reset) gives the same hashes.
 */
const operatorFor = (id: string) =>
  new Wallet(keccak256(toUtf8Bytes(`emulated polymarket exchange operator:${id}`)));

/** One order's part in a match: who, which way, and what it gave and got (6-decimal base units). */
export interface MatchLeg {
  orderHash: string;
  /** The order's maker (funder) address. */
  wallet: string;
  side: Side;
  shares: bigint;
  /** pUSD of these shares. */
  cost: bigint;
  fee: bigint;
}

export interface OnChainMatch {
  /** A stable id of the match (the settlement call names it). */
  id: string;
  tokenId: string;
  negRisk: boolean;
  /** The taker order: its shares and cost are the totals over the makers. */
  taker: MatchLeg;
  makers: MatchLeg[];
}

const GAS = { base: 90_000n, leg: 45_000n, revert: 30_000n };
const ZERO32 = `0x${'0'.repeat(64)}`;
const SIDE: Record<Side, number> = { BUY: 0, SELL: 1 };

/** A bytes32 order hash; ids the emulator made up from text are hashed into one. */
const hash32 = (id: string): string => (isHexString(id, 32) ? id.toLowerCase() : keccak256(toUtf8Bytes(id)));

/** [makerAmountFilled, takerAmountFilled]: what the order gave, what it got (BUY gives pUSD). */
const amounts = (l: MatchLeg): [bigint, bigint] =>
  l.side === 'BUY' ? [l.cost, l.shares] : [l.shares, l.cost];

export const exchangeOf = (negRisk: boolean): string =>
  (negRisk ? CONTRACTS.negRiskExchangeV2 : CONTRACTS.exchangeV2).toLowerCase();

// The events' topic hashes and data types, resolved once: the crowd settles thousands of fills,
// and `Interface.encodeEventLog` looks the fragment up and hashes its signature on every call.
const coder = AbiCoder.defaultAbiCoder();
const EVENTS = Object.fromEntries(
  ['OrderFilled', 'OrdersMatched'].map((name) => {
    const e = CTF_EXCHANGE_V2.getEvent(name)!;
    return [
      name,
      {
        topic: e.topicHash,
        indexed: e.inputs.filter((i) => i.indexed).length,
        types: e.inputs.filter((i) => !i.indexed).map((i) => i.type),
      },
    ];
  }),
);

/** `name`'s log: its indexed arguments (bytes32, address) come first, as in the ABI. */
function log(address: string, name: string, args: unknown[]): EventLog {
  const e = EVENTS[name]!;
  const word = (v: unknown) => zeroPadValue(String(v).toLowerCase(), 32);
  return {
    address,
    topics: [e.topic, ...args.slice(0, e.indexed).map(word)],
    data: coder.encode(e.types, args.slice(e.indexed)),
  };
}

/** The events of `m`, as the exchange emits them. */
export function fillLogs(m: OnChainMatch): EventLog[] {
  const exchange = exchangeOf(m.negRisk);
  const t = m.taker;
  const leg = (l: MatchLeg, taker: string) =>
    log(exchange, 'OrderFilled', [
      hash32(l.orderHash),
      l.wallet,
      taker,
      SIDE[l.side],
      m.tokenId,
      ...amounts(l),
      l.fee,
      ZERO32,
      ZERO32,
    ]);
  return [
    ...m.makers.map((l) => leg(l, t.wallet)),
    leg(t, exchange),
    log(exchange, 'OrdersMatched', [hash32(t.orderHash), t.wallet, SIDE[t.side], m.tokenId, ...amounts(t)]),
  ];
}

/** A match's settlement: the operator that may send it, and what it emits. */
interface Settlement {
  operator: string;
  logs: EventLog[];
}

/** Matches waiting to be (or already) mined, by id: what the settlement call emits. */
export class ChainMatches {
  private readonly byId = new Map<string, Settlement>();
  put(id: string, s: Settlement): void {
    this.byId.set(id, s);
  }
  get(id: string): Settlement | undefined {
    return this.byId.get(id);
  }
  reset(): void {
    this.byId.clear();
  }
}

/** Puts `m` on the chain; returns its transaction's hash. */
export function settleOnChain(state: PolymarketState, chain: PolygonChain, m: OnChainMatch): string {
  const id = hash32(m.id);
  const operator = operatorFor(id);
  state.chainMatches.put(id, { operator: operator.address.toLowerCase(), logs: fillLogs(m) });
  const data = CTF_EXCHANGE_V2.encodeFunctionData('settleEmulatedMatch', [id]);
  return sendAsOperator(state, chain, operator, exchangeOf(m.negRisk), data);
}

/** Whether `call` is the settlement of a known match by its operator (it changes no balance). */
export function isSettlement(state: PolymarketState, call: Call): boolean {
  return exchangeCall(state, call).ok;
}

/** A call to one of the V2 exchanges (tx-effects.ts `planCall`): only a match's settlement by its operator. */
export function exchangeCall(state: PolymarketState, call: Call): Outcome {
  const fail = (reason?: string): Outcome => ({ ok: false, reason, gas: GAS.revert });
  const parsed = CTF_EXCHANGE_V2.parseTransaction({ data: call.data });
  if (parsed?.name !== 'settleEmulatedMatch') return fail();
  const settlement = state.chainMatches.get(String(parsed.args[0]).toLowerCase());
  if (!settlement || settlement.operator !== call.from.toLowerCase()) return fail();
  const { logs } = settlement;
  if (logs.some((l) => l.address !== call.to?.toLowerCase())) return fail('unknown match');
  return { ok: true, returnData: '0x', gas: GAS.base + GAS.leg * BigInt(logs.length), apply: () => logs };
}
