import { TypedDataEncoder, type TypedDataDomain, type TypedDataField } from 'ethers';
import { CHAIN_ID, CONTRACTS } from './contracts.js';

// EIP-712 definitions of the CLOB (reference §4.1, §6.1, §6.2, §6.3): the L1 `ClobAuth` message
// and the V2 `Order` struct, plus the ERC-7739 `TypedDataSign` wrapper deposit wallets sign.
// Everything is hashed with ethers' TypedDataEncoder so the emulator checks signatures the way a
// wallet makes them, not the way a client library happens to.

export const CLOB_AUTH_MESSAGE = 'This message attests that I control the given wallet';
export const CLOB_AUTH_DOMAIN: TypedDataDomain = { name: 'ClobAuthDomain', version: '1', chainId: CHAIN_ID };
export const CLOB_AUTH_TYPES: Record<string, TypedDataField[]> = {
  ClobAuth: [
    { name: 'address', type: 'address' },
    { name: 'timestamp', type: 'string' },
    { name: 'nonce', type: 'uint256' },
    { name: 'message', type: 'string' },
  ],
};

export const EXCHANGE_DOMAIN_NAME = 'Polymarket CTF Exchange';

const ORDER_FIELDS: TypedDataField[] = [
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
];
export const ORDER_TYPES_V2: Record<string, TypedDataField[]> = { Order: ORDER_FIELDS };
export const ORDER_TYPE_STRING_V2 = TypedDataEncoder.from(ORDER_TYPES_V2).encodeType('Order');

/** The ERC-7739 envelope a deposit wallet's owner signs (signature type 3). */
const TYPED_DATA_SIGN_TYPES: Record<string, TypedDataField[]> = {
  TypedDataSign: [
    { name: 'contents', type: 'Order' },
    { name: 'name', type: 'string' },
    { name: 'version', type: 'string' },
    { name: 'chainId', type: 'uint256' },
    { name: 'verifyingContract', type: 'address' },
    { name: 'salt', type: 'bytes32' },
  ],
  Order: ORDER_FIELDS,
};

/** The V2 order as signed: side 0 = BUY, 1 = SELL. */
export interface OrderStruct {
  salt: bigint;
  maker: string;
  signer: string;
  tokenId: bigint;
  makerAmount: bigint;
  takerAmount: bigint;
  side: 0 | 1;
  signatureType: number;
  timestamp: bigint;
  metadata: string;
  builder: string;
}

/** The exchange domain of a V2 order: neg-risk markets trade on their own exchange (§6.1). */
export function exchangeDomain(negRisk: boolean, version: '1' | '2' | '3' = '2'): TypedDataDomain {
  const verifyingContract =
    version === '3'
      ? CONTRACTS.exchangeV3
      : version === '1'
        ? negRisk
          ? CONTRACTS.negRiskExchangeV1
          : CONTRACTS.exchangeV1
        : negRisk
          ? CONTRACTS.negRiskExchangeV2
          : CONTRACTS.exchangeV2;
  return { name: EXCHANGE_DOMAIN_NAME, version, chainId: CHAIN_ID, verifyingContract };
}

export const domainSeparator = (domain: TypedDataDomain): string => TypedDataEncoder.hashDomain(domain);

/** The order id: the EIP-712 digest of the order under its exchange domain. */
export function orderHash(order: OrderStruct, negRisk: boolean): string {
  return TypedDataEncoder.hash(exchangeDomain(negRisk), ORDER_TYPES_V2, order);
}

/** hashStruct(order): the "contents hash" inside a deposit-wallet signature. */
export function orderStructHash(order: OrderStruct): string {
  return TypedDataEncoder.from(ORDER_TYPES_V2).hash(order);
}

/** The digest a deposit wallet's owner signs for `order` (ERC-7739 TypedDataSign, §6.3). */
export function depositWalletDigest(order: OrderStruct, negRisk: boolean): string {
  return TypedDataEncoder.hash(exchangeDomain(negRisk), TYPED_DATA_SIGN_TYPES, {
    contents: order,
    name: 'DepositWallet',
    version: '1',
    chainId: CHAIN_ID,
    verifyingContract: order.signer,
    salt: `0x${'00'.repeat(32)}`,
  });
}

/** The digest behind an L1 header set. */
export function clobAuthDigest(address: string, timestamp: string, nonce: bigint): string {
  return TypedDataEncoder.hash(CLOB_AUTH_DOMAIN, CLOB_AUTH_TYPES, {
    address,
    timestamp,
    nonce,
    message: CLOB_AUTH_MESSAGE,
  });
}
