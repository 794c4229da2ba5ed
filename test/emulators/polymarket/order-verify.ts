import { getAddress, isAddress, isHexString, recoverAddress } from 'ethers';
import type { ApiKeyRecord } from './clob-auth.js';
import { exchangeFor } from './contracts.js';
import type { MarketRecord } from './model.js';
import {
  depositWalletDigest,
  domainSeparator,
  exchangeDomain,
  orderHash,
  orderStructHash,
  ORDER_TYPE_STRING_V2,
  type OrderStruct,
} from './typed-data.js';
import { proxyWalletOf, safeWalletOf } from './wallet-derivation.js';
import { UNIT } from './wallet-ledger.js';

// Turns one `POST /order` item into a verified order, or refuses it with the CLOB's own words
// (reference §5.1, §5.2, §6). Checks, in the order the real service is understood to apply them:
// V1 shape → payload → owner → order type → market → signature and wallet model → amounts.
// Nothing here touches balances or the book; that is the exchange's job.

export type OrderType = 'GTC' | 'GTD' | 'FOK' | 'FAK';
export type Side = 'BUY' | 'SELL';

export class OrderRejection extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export const ERR = {
  versionMismatch:
    'order_version_mismatch: the order is not a CLOB V2 order (V1 fields taker/nonce/feeRateBps or missing timestamp/metadata/builder)',
  payload: 'Invalid order payload',
  owner: 'the order owner has to be the owner of the API KEY',
  orderType: 'Invalid order type',
  postOnlyType: 'invalid post-only order: only GTC and GTD order types are allowed',
  postOnlyCross: 'invalid post-only order: order crosses book',
  token: 'Invalid token id',
  notReady: 'the market is not yet ready to process new orders',
  signature: 'invalid signature',
  signerNotKey: 'the order signer address has to be the address of the API KEY',
  depositWalletOnly: 'maker address not allowed, please use the deposit wallet flow',
  tick: 'order is invalid. Price breaks minimum tick size rules',
  minSize: 'order is invalid. Size lower than the minimum',
  expiration: 'invalid expiration',
  duplicated: "order is invalid. Duplicated. Same order has already been placed, can't be placed again",
  balance: 'not enough balance / allowance',
  fok: "order couldn't be fully filled. FOK orders are fully filled or killed.",
  fak: 'no orders found to match with FAK order. FAK orders are partially filled or killed if no match is found.',
  precisionBuy:
    'invalid amounts, the market buy orders maker amount supports a max accuracy of 2 decimals, taker amount a max of 4 decimals',
  precisionSell:
    'invalid amounts, the sell orders maker amount supports a max accuracy of 2 decimals, taker amount a max of 4 decimals',
  disabled: 'Trading is currently disabled. Check polymarket.com for updates',
  cancelOnly: 'Trading is currently cancel-only. New orders are not accepted, but cancels are allowed.',
} as const;

export interface VerifiedOrder {
  id: string;
  struct: OrderStruct;
  market: MarketRecord;
  outcomeIndex: number;
  tokenId: string;
  side: Side;
  orderType: OrderType;
  postOnly: boolean;
  /** Checksummed, as signed. */
  maker: string;
  signer: string;
  signatureType: number;
  /** Unix seconds; 0 = none. Only GTD orders expire. */
  expiration: number;
  /** The exchange (spender / operator) the order settles through. */
  exchange: string;
  /**
   * Limit price as the exact ratio num/den (pUSD per share): BUY makerAmount/takerAmount,
   * SELL takerAmount/makerAmount. Market orders' implied prices need not sit on the tick grid.
   */
  limitNum: bigint;
  limitDen: bigint;
  /** Shares wanted (BUY takerAmount) or offered (SELL makerAmount), base units. */
  shares: bigint;
  /** FOK/FAK BUYs spend makerAmount pUSD rather than buying a fixed number of shares. */
  amountBound: boolean;
}

export interface VerifyContext {
  key: ApiKeyRecord;
  nowMs: number;
  marketByToken(token: string): { market: MarketRecord; index: number } | undefined;
  /** Answer types 0/1/2 with the deposit-wallet error (the new-account behaviour of §0). */
  depositWalletOnly: boolean;
  /** The owner EOA of a deployed deposit wallet (what its ERC-1271 check recovers against); undefined if none. */
  depositWalletOwner(address: string): string | undefined;
}

const V1_FIELDS = ['taker', 'nonce', 'feeRateBps'];
const V2_FIELDS = ['timestamp', 'metadata', 'builder'];
const ORDER_TYPES: OrderType[] = ['GTC', 'GTD', 'FOK', 'FAK'];
const BYTES32 = /^0x[0-9a-fA-F]{64}$/;

/** A V1-shaped order: it carries V1-only fields or lacks V2-only ones. */
export function isV1Shaped(order: Record<string, unknown>): boolean {
  return V1_FIELDS.some((f) => f in order) || V2_FIELDS.some((f) => !(f in order));
}

const bad = () => new OrderRejection(400, ERR.payload);

function uintField(v: unknown, maxDigits = 78): bigint {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === 'string' && new RegExp(`^\\d{1,${maxDigits}}$`).test(v)) return BigInt(v);
  throw bad();
}

function addressField(v: unknown): string {
  if (typeof v !== 'string' || !isAddress(v)) throw bad();
  return getAddress(v.toLowerCase());
}

function bytes32Field(v: unknown): string {
  if (typeof v !== 'string' || !BYTES32.test(v)) throw bad();
  return v.toLowerCase();
}

/** Parses the signed part of a V2 order; throws the payload error on anything malformed. */
function parseStruct(o: Record<string, unknown>): OrderStruct {
  if (o.side !== 'BUY' && o.side !== 'SELL') throw bad();
  const signatureType = o.signatureType;
  if (typeof signatureType !== 'number' || ![0, 1, 2, 3].includes(signatureType)) throw bad();
  return {
    salt: uintField(o.salt),
    maker: addressField(o.maker),
    signer: addressField(o.signer),
    tokenId: uintField(o.tokenId),
    makerAmount: uintField(o.makerAmount, 30),
    takerAmount: uintField(o.takerAmount, 30),
    side: o.side === 'BUY' ? 0 : 1,
    signatureType,
    timestamp: uintField(o.timestamp, 16),
    metadata: bytes32Field(o.metadata),
    builder: bytes32Field(o.builder),
  };
}

function recover(digest: string, signature: string): string | undefined {
  try {
    return recoverAddress(digest, signature).toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * Signature type 3: `innerSig(65) ‖ domainSeparator(32) ‖ contentsHash(32) ‖ typeString ‖
 * uint16BE(len)` (§6.3). The wallet's ERC-1271 check is emulated: the envelope must describe this
 * very order under this exchange, and the inner signature must come from the owner the wallet was
 * deployed for (an undeployed address has no code, so its `isValidSignature` fails). That owner
 * must also be the EOA of the API key (L1/L2 stay EOA-bound, §4.1).
 */
function depositWalletSigner(struct: OrderStruct, negRisk: boolean, signature: string): string | undefined {
  const bytes = Buffer.from(signature.slice(2), 'hex');
  if (bytes.length < 65 + 64 + 2) return undefined;
  const len = bytes.readUInt16BE(bytes.length - 2);
  if (bytes.length !== 65 + 64 + len + 2) return undefined;
  const hex = (from: number, to: number) => `0x${bytes.subarray(from, to).toString('hex')}`;
  const typeString = bytes.subarray(129, 129 + len).toString('utf8');
  if (hex(65, 97) !== domainSeparator(exchangeDomain(negRisk)).toLowerCase()) return undefined;
  if (hex(97, 129) !== orderStructHash(struct).toLowerCase()) return undefined;
  if (typeString !== ORDER_TYPE_STRING_V2) return undefined;
  return recover(depositWalletDigest(struct, negRisk), hex(0, 65));
}

function checkWalletModel(
  struct: OrderStruct,
  id: string,
  negRisk: boolean,
  sig: string,
  ctx: VerifyContext,
) {
  const owner = ctx.key.address;
  const maker = struct.maker.toLowerCase();
  const signer = struct.signer.toLowerCase();
  if (struct.signatureType === 3) {
    if (maker !== signer) throw new OrderRejection(400, ERR.signature);
    const walletOwner = ctx.depositWalletOwner(maker)?.toLowerCase();
    if (walletOwner === undefined || depositWalletSigner(struct, negRisk, sig) !== walletOwner)
      throw new OrderRejection(400, ERR.signature);
    if (walletOwner !== owner) throw new OrderRejection(400, ERR.signerNotKey);
    return;
  }
  if (ctx.depositWalletOnly) throw new OrderRejection(400, ERR.depositWalletOnly);
  if (recover(id, sig) !== signer) throw new OrderRejection(400, ERR.signature);
  if (signer !== owner) throw new OrderRejection(400, ERR.signerNotKey);
  const expectedMaker =
    struct.signatureType === 0
      ? signer
      : (struct.signatureType === 1 ? proxyWalletOf(signer) : safeWalletOf(signer)).toLowerCase();
  if (maker !== expectedMaker) throw new OrderRejection(400, ERR.signature);
}

/** Decimal places of a base-unit amount beyond which it is "too precise". */
const hasAtMostDecimals = (units: bigint, decimals: number) => units % 10n ** BigInt(6 - decimals) === 0n;

function checkAmounts(v: Omit<VerifiedOrder, 'shares' | 'amountBound'>, nowMs: number) {
  const { market, struct, orderType } = v;
  if (struct.makerAmount === 0n || struct.takerAmount === 0n) throw new OrderRejection(400, ERR.payload);
  const tickMicro = BigInt(Math.round(market.tick * 1e6));
  // tick ≤ price ≤ 1 − tick, compared as exact ratios.
  if (v.limitNum * UNIT < tickMicro * v.limitDen || v.limitNum * UNIT > (UNIT - tickMicro) * v.limitDen) {
    throw new OrderRejection(400, ERR.tick);
  }
  const resting = orderType === 'GTC' || orderType === 'GTD';
  if (resting) {
    // A limit order's price must be a whole number of ticks.
    const scaled = v.limitNum * UNIT;
    if (scaled % v.limitDen !== 0n || (scaled / v.limitDen) % tickMicro !== 0n) {
      throw new OrderRejection(400, ERR.tick);
    }
    const shares = v.side === 'BUY' ? struct.takerAmount : struct.makerAmount;
    if (shares < BigInt(Math.round(market.minSize * 1e6))) throw new OrderRejection(400, ERR.minSize);
  } else if (!hasAtMostDecimals(struct.makerAmount, 2) || !hasAtMostDecimals(struct.takerAmount, 4)) {
    // Market orders (FOK/FAK): maker amount ≤ 2 decimals, taker amount ≤ 4 (§6.4).
    throw new OrderRejection(400, v.side === 'BUY' ? ERR.precisionBuy : ERR.precisionSell);
  }
  // GTD: the real service keeps a one-minute security buffer.
  if (orderType === 'GTD' && v.expiration <= Math.floor(nowMs / 1000) + 60) {
    throw new OrderRejection(400, ERR.expiration);
  }
}

/** Verifies one `POST /order` item (`{order, owner, orderType, postOnly, deferExec}`). */
export function verifyOrder(item: unknown, ctx: VerifyContext): VerifiedOrder {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) throw bad();
  const body = item as Record<string, unknown>;
  const o = body.order;
  if (typeof o !== 'object' || o === null || Array.isArray(o)) throw bad();
  const order = o as Record<string, unknown>;
  if (isV1Shaped(order)) throw new OrderRejection(400, ERR.versionMismatch);
  const struct = parseStruct(order);
  const signature = order.signature;
  if (typeof signature !== 'string' || !isHexString(signature) || signature.length < 132) throw bad();
  const expiration = Number(uintField(order.expiration ?? '0', 12));

  if (body.owner !== ctx.key.apiKey) throw new OrderRejection(400, ERR.owner);
  const orderType = (body.orderType ?? 'GTC') as OrderType;
  if (!ORDER_TYPES.includes(orderType)) throw new OrderRejection(400, ERR.orderType);
  const postOnly = body.postOnly === true;
  if (postOnly && orderType !== 'GTC' && orderType !== 'GTD') throw new OrderRejection(400, ERR.postOnlyType);

  const tokenId = struct.tokenId.toString();
  const hit = ctx.marketByToken(tokenId);
  if (!hit) throw new OrderRejection(400, ERR.token);
  const { market, index } = hit;
  if (market.closed || !market.acceptingOrders || !market.enableOrderBook) {
    throw new OrderRejection(400, ERR.notReady);
  }

  const id = orderHash(struct, market.negRisk);
  checkWalletModel(struct, id, market.negRisk, signature, ctx);

  const side: Side = struct.side === 0 ? 'BUY' : 'SELL';
  const base = {
    id,
    struct,
    market,
    outcomeIndex: index,
    tokenId,
    side,
    orderType,
    postOnly,
    maker: struct.maker,
    signer: struct.signer,
    signatureType: struct.signatureType,
    expiration: orderType === 'GTD' ? expiration : 0,
    exchange: exchangeFor(market.negRisk),
    limitNum: side === 'BUY' ? struct.makerAmount : struct.takerAmount,
    limitDen: side === 'BUY' ? struct.takerAmount : struct.makerAmount,
  };
  checkAmounts(base, ctx.nowMs);
  const amountBound = side === 'BUY' && (orderType === 'FOK' || orderType === 'FAK');
  return { ...base, shares: side === 'BUY' ? struct.takerAmount : struct.makerAmount, amountBound };
}
