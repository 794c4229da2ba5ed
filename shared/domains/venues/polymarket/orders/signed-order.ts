import { z } from 'zod';
import { accept, type Decision, type Refusal } from '../../../refusal.js';
import { orderHash, recoverOrderSigner, ZERO_BYTES32, type SignedV2Order } from './order-eip712.js';

/**
 * The `signed_order` an external-wallet client sends with `POST /api/sdk/trade`
 * (client-contract §4.1): a CLOB order signed locally. Checked here against the trade it claims
 * to be before it is relayed, so that a relayed order is always the trade the agent asked for.
 */
const uint = z.union([z.string().regex(/^\d+$/), z.number().int().nonnegative()]).transform(String);
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'a 0x-prefixed 20-byte address');

export const SignedOrderInputSchema = z.looseObject({
  salt: uint,
  maker: address,
  signer: address,
  tokenId: uint,
  makerAmount: uint,
  takerAmount: uint,
  side: z.enum(['BUY', 'SELL']),
  signatureType: z.number().int().min(0).max(3),
  signature: z.string().regex(/^(0x)?[0-9a-fA-F]+$/, 'hex'),
  // V2 fields; V1 orders carry taker/nonce/feeRateBps instead.
  timestamp: uint.optional(),
  metadata: z.string().optional(),
  builder: z.string().optional(),
  expiration: uint.optional(),
  taker: z.string().optional(),
  nonce: uint.optional(),
  feeRateBps: uint.optional(),
});
export type SignedOrderInput = z.output<typeof SignedOrderInputSchema>;

export interface OrderExpectation {
  /** The token of the outcome traded. */
  tokenId: string;
  side: 'BUY' | 'SELL';
  /** A buy's spend, in micro-pUSD. */
  amountMicro: number;
  /** A sell's size, in micro-shares. */
  sharesMicro: number;
  /** The request's limit price, if any. */
  limitPrice: number | null;
  negRisk: boolean;
  /** The owner's linked wallet: the EOA that signs (types 0–2) or the deposit wallet (type 3). */
  wallet: { address: string; depositWallet: string | null };
}

/** Base units a client's rounding may leave between the order and the request (one cent, 0.01 share). */
const ROUNDING_MICRO = 10_000;
/** One unit of the taker amount at the CLOB's market-order precision (4 decimals). */
const TAKER_ROUNDING_MICRO = 100;

const refusal = (errorCode: string, error: string, hint: string): Refusal => ({
  error,
  errorCode,
  retryable: false,
  hint,
  category: 'venue',
});

const same = (a: string, b: string | null) => b !== null && a.toLowerCase() === b.toLowerCase();

/**
 * The order ready to relay (V2, its id, its price), or why it is not the trade requested. The CLOB
 * checks balances, ticks and the type-3 (ERC-1271) signature itself; this refuses what would make
 * the relayed order a different trade, or one the linked wallet did not sign.
 */
export function checkSignedOrder(
  input: SignedOrderInput,
  want: OrderExpectation,
): Decision<{ order: SignedV2Order; orderId: string; price: number }> {
  const resign =
    'Sign the order again for this market, side and amount with the wallet linked to this account.';
  if (input.timestamp === undefined || input.taker !== undefined || input.nonce !== undefined)
    return {
      ok: false,
      refusal: refusal(
        'order_version_mismatch',
        'The signed order is a V1 order (taker/nonce/feeRateBps); Polymarket accepts only V2 orders (timestamp/metadata/builder) now.',
        'Upgrade the client (py-clob-client-v2 or @polymarket/clob-client-v2) and sign the order again.',
      ),
    };
  if (input.tokenId !== want.tokenId)
    return {
      ok: false,
      refusal: refusal(
        'signed_order_mismatch',
        `signed_order.tokenId is not the token of the ${want.side === 'BUY' ? 'outcome bought' : 'outcome sold'} on this market.`,
        resign,
      ),
    };
  if (input.side !== want.side)
    return {
      ok: false,
      refusal: refusal(
        'signed_order_mismatch',
        `signed_order.side is ${input.side}, the trade is a ${want.side}.`,
        resign,
      ),
    };
  const maker = Number(input.makerAmount);
  const taker = Number(input.takerAmount);
  if (!(maker > 0 && taker > 0))
    return {
      ok: false,
      refusal: refusal('signed_order_mismatch', 'signed_order amounts must be positive.', resign),
    };
  if (want.side === 'BUY' && (maker > want.amountMicro || maker < want.amountMicro - ROUNDING_MICRO))
    return {
      ok: false,
      refusal: refusal(
        'signed_order_mismatch',
        `signed_order.makerAmount (${maker / 1e6} pUSD) is not the amount of the trade (${want.amountMicro / 1e6}).`,
        resign,
      ),
    };
  if (want.side === 'SELL' && Math.abs(maker - want.sharesMicro) > ROUNDING_MICRO)
    return {
      ok: false,
      refusal: refusal(
        'signed_order_mismatch',
        `signed_order.makerAmount (${maker / 1e6} shares) is not the shares of the trade (${want.sharesMicro / 1e6}).`,
        resign,
      ),
    };
  const price = want.side === 'BUY' ? maker / taker : taker / maker;
  // The taker amount may be floored at the CLOB's market-order precision (4 decimals): the official
  // client's type-3 buys floor the shares so the bid is never under the price asked, which leaves
  // maker/taker a hair above it. Within that last unit the order is at the limit.
  const takerSlack = taker + TAKER_ROUNDING_MICRO;
  if (
    want.limitPrice !== null &&
    (want.side === 'BUY'
      ? maker / takerSlack > want.limitPrice + 1e-9
      : takerSlack / maker < want.limitPrice - 1e-9)
  )
    return {
      ok: false,
      refusal: refusal(
        'signed_order_mismatch',
        `signed_order's price ${price.toFixed(4)} is beyond the trade's limit price ${want.limitPrice}.`,
        resign,
      ),
    };

  const order: SignedV2Order = {
    salt: input.salt,
    maker: input.maker,
    signer: input.signer,
    tokenId: input.tokenId,
    makerAmount: input.makerAmount,
    takerAmount: input.takerAmount,
    side: input.side,
    signatureType: input.signatureType,
    timestamp: input.timestamp,
    expiration: input.expiration ?? '0',
    metadata: input.metadata ?? ZERO_BYTES32,
    builder: input.builder ?? ZERO_BYTES32,
    signature: input.signature.startsWith('0x') ? input.signature : `0x${input.signature}`,
  };
  const linkFix = 'Link the wallet that signs (POST /api/sdk/wallet/link), or sign with the linked one.';
  if (order.signatureType === 3) {
    // A deposit wallet signs as itself (ERC-1271); the exchange verifies the wrapped signature.
    if (!same(order.maker, want.wallet.depositWallet) || !same(order.signer, want.wallet.depositWallet))
      return {
        ok: false,
        refusal: refusal(
          'wallet_mismatch',
          'A type-3 order must have maker and signer = the deposit wallet linked to this account.',
          linkFix,
        ),
      };
  } else {
    if (!same(order.signer, want.wallet.address))
      return {
        ok: false,
        refusal: refusal(
          'wallet_mismatch',
          `signed_order.signer ${order.signer} is not the wallet linked to this account.`,
          linkFix,
        ),
      };
    if (order.signatureType === 0 && !same(order.maker, order.signer))
      return {
        ok: false,
        refusal: refusal(
          'signed_order_mismatch',
          'An EOA order (signatureType 0) has maker = signer.',
          resign,
        ),
      };
    let recovered: string;
    try {
      recovered = recoverOrderSigner(order, want.negRisk);
    } catch {
      recovered = '';
    }
    if (!same(recovered, order.signer))
      return {
        ok: false,
        refusal: refusal(
          'invalid_signature',
          'The order signature does not recover to signed_order.signer under the Polymarket CTF Exchange (V2) domain of this market.',
          want.negRisk
            ? 'This is a neg-risk market: sign for the neg-risk exchange 0xe2222d279d744050d28e00520010520000310F59.'
            : 'Sign for the CTF exchange 0xE111180000d2663C0091e4f400237545B87B996B, domain version "2", chain 137.',
        ),
      };
  }
  return accept({ order, orderId: orderHash(order, want.negRisk), price });
}
