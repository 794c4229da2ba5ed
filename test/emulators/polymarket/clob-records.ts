import type { OrderType, Side, VerifiedOrder } from './order-verify.js';

// In-memory records of the emulated CLOB's trading side. Like model.ts, these are not wire
// shapes: clob-wire.ts renders OpenOrder / Trade / POST-order responses from them.

/** `LIVE` rests (also after partial fills); `DELAYED` waits for its matching delay. */
export type OrderStatus = 'LIVE' | 'DELAYED' | 'MATCHED' | 'CANCELED' | 'UNMATCHED';
export type TradeStatus = 'MATCHED' | 'MINED' | 'CONFIRMED' | 'RETRYING' | 'FAILED';
export const TRADING_MODES = ['active', 'cancel-only', 'disabled'] as const;
export type TradingMode = (typeof TRADING_MODES)[number];

export interface ClobOrder extends Omit<VerifiedOrder, 'market'> {
  conditionId: string;
  outcome: string;
  /** The API key that posted it and the EOA owning that key (lower-case). */
  ownerKey: string;
  ownerAddress: string;
  createdMs: number;
  status: OrderStatus;
  /** Shares filled so far (base units). */
  sizeMatched: bigint;
  /** pUSD paid or received so far (base units, fees excluded). */
  notionalMatched: bigint;
  associateTrades: string[];
  /** For DELAYED orders: when they get matched (emulator clock, ms). */
  delayedUntilMs: number | undefined;
  /** Placement sequence, for time priority among equal prices. */
  seq: number;
}

export interface MakerFill {
  orderId: string;
  ownerKey: string;
  ownerAddress: string;
  makerAddress: string;
  side: Side;
  shares: bigint;
  priceMicro: bigint;
}

/** One ledger movement of a trade, kept so a FAILED trade can be rolled back. */
export interface LedgerLeg {
  /** `'pusd'` or an ERC-1155 token id. */
  asset: string;
  from: string;
  to: string;
  amount: bigint;
}

export interface TradeRecord {
  id: string;
  takerOrderId: string;
  takerOwnerKey: string;
  takerOwnerAddress: string;
  /** The taker order's `maker` (funder) address. */
  takerMaker: string;
  conditionId: string;
  tokenId: string;
  outcome: string;
  side: Side;
  shares: bigint;
  notional: bigint;
  fee: bigint;
  status: TradeStatus;
  matchMs: number;
  updatedMs: number;
  transactionHash: string;
  makers: MakerFill[];
  legs: LedgerLeg[];
  seq: number;
}

export interface ClobSettings {
  trading: TradingMode;
  /** Trades become MINED this long after matching (emulator clock); null = only via admin. */
  minedAfterMs: number | null;
  /** …and CONFIRMED this long after matching; null = only via admin. */
  confirmedAfterMs: number | null;
  /** Allowed |POLY_TIMESTAMP − now| in seconds for L1 and L2; null = no check. */
  authSkewSec: number | null;
  /** Page size of /data/orders and /data/trades. */
  pageSize: number;
  /** Refuse signature types 0/1/2 with the deposit-wallet error (new accounts, §0). */
  depositWalletOnly: boolean;
  /** How many of the next orders answer `delayed`, and for how long they wait. */
  delayNext: number;
  delayMs: number;
}

export const DEFAULT_SETTINGS: ClobSettings = {
  trading: 'active',
  minedAfterMs: 5_000,
  confirmedAfterMs: 15_000,
  authSkewSec: 30,
  pageSize: 100,
  depositWalletOnly: false,
  delayNext: 0,
  delayMs: 5_000,
};

export type { OrderType, Side };
