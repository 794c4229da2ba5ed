import { TypedDataEncoder, verifyTypedData, type Signer, type TypedDataDomain } from 'ethers';

/**
 * The CLOB "V2" order as signed under EIP-712 (polymarket.md §6.1–6.2): the exchange of the
 * market's family (standard or neg-risk) on Polygon, domain version "2", eleven signed fields.
 * `expiration` travels in the order JSON but is not signed in V2.
 */
export const POLYGON_CHAIN_ID = 137;

export const V2_EXCHANGES = {
  standard: '0xE111180000d2663C0091e4f400237545B87B996B',
  negRisk: '0xe2222d279d744050d28e00520010520000310F59',
} as const;

export const ORDER_TYPES = {
  Order: [
    { name: 'salt', type: 'uint256' },
    { name: 'maker', type: 'address' },
    { name: 'signer', type: 'address' },
    { name: 'tokenId', type: 'uint256' },
    { name: 'makerAmount', type: 'uint256' },
    { name: 'takerAmount', type: 'uint256' },
    { name: 'side', type: 'uint8' },
    { name: 'signatureType', type: 'uint8' },
    { name: 'timestamp', type: 'uint256' },
    { name: 'metadata', type: 'bytes32' },
    { name: 'builder', type: 'bytes32' },
  ],
};

export const ZERO_BYTES32 = `0x${'0'.repeat(64)}`;

/** The fields of a V2 order, as the CLOB's JSON carries them (amounts and ids as decimal strings). */
export interface V2Order {
  salt: string;
  maker: string;
  signer: string;
  tokenId: string;
  makerAmount: string;
  takerAmount: string;
  side: 'BUY' | 'SELL';
  signatureType: number;
  timestamp: string;
  expiration: string;
  metadata: string;
  builder: string;
}

export interface SignedV2Order extends V2Order {
  signature: string;
}

export const exchangeDomain = (negRisk: boolean): TypedDataDomain => ({
  name: 'Polymarket CTF Exchange',
  version: '2',
  chainId: POLYGON_CHAIN_ID,
  verifyingContract: negRisk ? V2_EXCHANGES.negRisk : V2_EXCHANGES.standard,
});

/** The signed struct: `side` is signed as 0 (BUY) / 1 (SELL); expiration is left out. */
const signedValue = (o: V2Order) => ({
  salt: o.salt,
  maker: o.maker,
  signer: o.signer,
  tokenId: o.tokenId,
  makerAmount: o.makerAmount,
  takerAmount: o.takerAmount,
  side: o.side === 'BUY' ? 0 : 1,
  signatureType: o.signatureType,
  timestamp: o.timestamp,
  metadata: o.metadata,
  builder: o.builder,
});

/** The order's id on the CLOB: its typed-data hash under the exchange's domain. */
export const orderHash = (order: V2Order, negRisk: boolean): string =>
  TypedDataEncoder.hash(exchangeDomain(negRisk), ORDER_TYPES, signedValue(order));

/** The address whose key made `signature` over the order (signature types 0/1/2: the EOA). */
export const recoverOrderSigner = (order: SignedV2Order, negRisk: boolean): string =>
  verifyTypedData(exchangeDomain(negRisk), ORDER_TYPES, signedValue(order), order.signature);

/** Signs `order` with `signer` (a managed wallet) under the exchange's domain. */
export async function signOrder(signer: Signer, order: V2Order, negRisk: boolean): Promise<SignedV2Order> {
  const signature = await signer.signTypedData(exchangeDomain(negRisk), ORDER_TYPES, signedValue(order));
  return { ...order, signature };
}
