import { TypedDataEncoder, getAddress } from 'ethers';
import { POLYGON_CHAIN_ID } from '../polygon-contracts.js';

/**
 * The batch a deposit wallet's owner signs (polymarket.md §8.4): EIP-712
 * `Batch(address wallet,uint256 nonce,uint256 deadline,Call[] calls)Call(address target,uint256 value,bytes data)`
 * under the wallet's own domain `{name: "DepositWallet", version: "1", chainId: 137, verifyingContract: wallet}`.
 * The relayer executes it from the wallet once; `nonce` is the wallet's, `deadline` at most 300 s ahead.
 *
 * `typed_data` is handed to the client in the JSON form `eth_account.Account.sign_typed_data(key,
 * full_message=…)` signs (the official client passes it so), with `EIP712Domain` and `primaryType`;
 * numbers are decimal strings and `data` hex, which both eth_account and ethers read.
 */

/** A call as the wire carries it: value a decimal string ("0": none of these calls moves POL). */
export interface BatchCall {
  target: string;
  value: string;
  data: string;
}

export const BATCH_TYPES = {
  Batch: [
    { name: 'wallet', type: 'address' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
    { name: 'calls', type: 'Call[]' },
  ],
  Call: [
    { name: 'target', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'data', type: 'bytes' },
  ],
};

const EIP712_DOMAIN = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
];

/** How far ahead a batch may expire: the relayer's maximum is 300 s; the rest is the client's time to sign. */
export const BATCH_DEADLINE_S = 240;

export interface Batch {
  wallet: string;
  nonce: string;
  deadline: string;
  calls: readonly BatchCall[];
}

const domainOf = (wallet: string) => ({
  name: 'DepositWallet',
  version: '1',
  chainId: Number(POLYGON_CHAIN_ID),
  verifyingContract: getAddress(wallet),
});

const messageOf = (b: Batch) => ({
  wallet: getAddress(b.wallet),
  nonce: b.nonce,
  deadline: b.deadline,
  calls: b.calls.map((c) => ({ target: getAddress(c.target), value: c.value, data: c.data })),
});

/** The full EIP-712 document the owner signs. */
export function batchTypedData(b: Batch) {
  return {
    types: { EIP712Domain: EIP712_DOMAIN, ...BATCH_TYPES },
    primaryType: 'Batch' as const,
    domain: domainOf(b.wallet),
    message: messageOf(b),
  };
}

/** The digest the owner's signature recovers from. */
export const batchDigest = (b: Batch): string =>
  TypedDataEncoder.hash(domainOf(b.wallet), BATCH_TYPES, messageOf(b));

/** Calls equal as the chain reads them (addresses and hex in any case). */
export const sameCalls = (a: readonly BatchCall[], b: readonly BatchCall[]) =>
  a.length === b.length &&
  a.every(
    (c, i) =>
      c.target.toLowerCase() === b[i]!.target.toLowerCase() &&
      BigInt(c.value) === BigInt(b[i]!.value) &&
      c.data.toLowerCase() === b[i]!.data.toLowerCase(),
  );
