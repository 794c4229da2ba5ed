import { AbiCoder, getCreate2Address, keccak256, solidityPacked } from 'ethers';

// CREATE2 derivations of a Polymarket funder wallet from its owner EOA (polymarket.md §9.2); the
// exchange checks the same relation between an order's maker and signer.
const PROXY_FACTORY = '0xaB45c5A4B0c941a2F231C04C3f49182e1A254052';
const PROXY_INIT_CODE_HASH = '0xd21df8dc65880a8606f09fe0ce3df9b8869287ab0b058be05aa9e8af6330a00b';
const SAFE_FACTORY = '0xaacFeEa03eb1561C4e67d661e40682Bd20E3541b';
const SAFE_INIT_CODE_HASH = '0x2bce2127ff07fb632d16c8347c4ebf501f4841168bed00d9e6ef715ddb6fcecf';

/** The Polymarket proxy wallet (signature type 1, email/Magic accounts) of `eoa`. */
export const polyProxyAddress = (eoa: string) =>
  getCreate2Address(PROXY_FACTORY, keccak256(solidityPacked(['address'], [eoa])), PROXY_INIT_CODE_HASH);

/** The Polymarket Gnosis Safe (signature type 2, browser-wallet accounts) of `eoa`. */
export const polySafeAddress = (eoa: string) =>
  getCreate2Address(
    SAFE_FACTORY,
    keccak256(AbiCoder.defaultAbiCoder().encode(['address'], [eoa])),
    SAFE_INIT_CODE_HASH,
  );
