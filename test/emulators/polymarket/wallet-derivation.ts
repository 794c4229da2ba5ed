import { AbiCoder, getCreate2Address, keccak256, solidityPacked } from 'ethers';

// Which funder wallet an EOA may trade for (reference §6.3, §9.2): the exchange accepts signature
// type 1 only when `maker` is the EOA's Polymarket proxy and type 2 only when it is the EOA's Safe,
// both CREATE2 addresses derived from the EOA. Deposit wallets (type 3) are the factory's wallets
// of deposit-wallets.ts: the exchange accepts them once deployed, for their owner.

const PROXY_FACTORY = '0xaB45c5A4B0c941a2F231C04C3f49182e1A254052';
const PROXY_INIT_CODE_HASH = '0xd21df8dc65880a8606f09fe0ce3df9b8869287ab0b058be05aa9e8af6330a00b';
const SAFE_FACTORY = '0xaacFeEa03eb1561C4e67d661e40682Bd20E3541b';
const SAFE_INIT_CODE_HASH = '0x2bce2127ff07fb632d16c8347c4ebf501f4841168bed00d9e6ef715ddb6fcecf';

/** POLY_PROXY wallet of `eoa`: salt = keccak256(abi.encodePacked(eoa)). */
export function proxyWalletOf(eoa: string): string {
  return getCreate2Address(
    PROXY_FACTORY,
    keccak256(solidityPacked(['address'], [eoa])),
    PROXY_INIT_CODE_HASH,
  );
}

/** POLY_GNOSIS_SAFE wallet of `eoa`: salt = keccak256(abi.encode(eoa)). */
export function safeWalletOf(eoa: string): string {
  return getCreate2Address(
    SAFE_FACTORY,
    keccak256(AbiCoder.defaultAbiCoder().encode(['address'], [eoa])),
    SAFE_INIT_CODE_HASH,
  );
}
