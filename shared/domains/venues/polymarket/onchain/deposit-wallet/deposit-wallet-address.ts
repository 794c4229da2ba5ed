import { AbiCoder, concat, getCreate2Address, keccak256, toBeHex, zeroPadValue } from 'ethers';
import { POLYGON_CONTRACTS } from '../polygon-contracts.js';

/**
 * The deposit wallet (signature type 3) of an owner EOA: the CREATE2 address at which Polymarket's
 * deposit wallet factory deploys it (polymarket.md §8.1 factory / implementation, §9.2 salt).
 *
 * The reference gives the salt (`keccak256(abi.encode(factory, walletId))`, walletId = the EOA
 * left-padded to bytes32) and says the init code is an ERC-1967 proxy, "use the official SDK's
 * derivation, do not hand-roll". This is that derivation: the one of the polynode SDK the official
 * Simmer client depends on (`derive_deposit_wallet_address`), a Solady `LibClone` ERC-1967 clone of
 * the implementation carrying `abi.encode(factory, walletId)` as immutable args. The test checks it
 * against polynode's output for a fixed EOA, and the emulated factory derives it independently.
 */

const IMPLEMENTATION = '0x58CA52ebe0DadfdF531Cde7062e76746de4Db1eB';
// Solady LibClone.initCodeERC1967(implementation, args): a 10-byte prefix carrying the runtime
// length, the implementation, then the fixed ERC-1967 runtime, then the args.
const PREFIX = 0x61003d3d8160233d3973n;
const RUNTIME_HEAD = '0x5155f3363d3d373d3d363d7f360894a13ba1a3210667c828492db98dca3e2076';
const RUNTIME_TAIL = '0xcc3735a920a3ca505d382bbc545af43d6000803e6038573d6000fd5b3d6000f3';

export function depositWalletAddress(owner: string): string {
  const factory = POLYGON_CONTRACTS.depositWalletFactory;
  const args = AbiCoder.defaultAbiCoder().encode(['address', 'bytes32'], [factory, zeroPadValue(owner, 32)]);
  const argsLength = BigInt((args.length - 2) / 2);
  const initCode = concat([
    toBeHex(PREFIX + (argsLength << 56n), 10),
    IMPLEMENTATION,
    '0x6009',
    RUNTIME_HEAD,
    RUNTIME_TAIL,
    args,
  ]);
  return getCreate2Address(factory, keccak256(args), keccak256(initCode));
}
