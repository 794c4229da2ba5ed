import {
  AbiCoder,
  concat,
  getAddress,
  getCreate2Address,
  keccak256,
  recoverAddress,
  toBeHex,
  toUtf8Bytes,
  TypedDataEncoder,
  Wallet,
  zeroPadValue,
} from 'ethers';
import { CHAIN_ID, CONTRACTS } from './contracts.js';

// Polymarket deposit wallets (signature type 3, reference §6.3, §8.4, §9.2), as the chain and the
// relayer see them: which wallets the factory deployed, their owner EOA and their batch nonce.
// The exchange asks `ownerOf` for its ERC-1271 check of type-3 orders; the relayer sends the
// factory's `deploy` (WALLET-CREATE) and `proxy` (owner-signed `Batch`es, WALLET) as transactions
// of its operator, which the chain stand-in mines against the shared ledger
// (../polygon/deposit-wallet-factory.ts).
//
// The address is the factory's CREATE2 address of a Solady ERC-1967 clone with immutable args
// (implementation 0x58CA…eB1eB, args = abi.encode(factory, walletId), walletId = the EOA left-padded
// to 32 bytes, salt = keccak256(args)), as the polynode SDK the official Simmer client depends on
// derives it (`derive_deposit_wallet_address`). The emulator keeps its own copy rather than importing
// the service's, so a mistake on either side shows up as a mismatch in the tests.

const IMPLEMENTATION = '0x58CA52ebe0DadfdF531Cde7062e76746de4Db1eB';
/** Solady `LibClone.initCodeERC1967(implementation, args)` around the implementation and args. */
const CLONE_HEAD = '0x5155f3363d3d373d3d363d7f360894a13ba1a3210667c828492db98dca3e2076';
const CLONE_TAIL = '0xcc3735a920a3ca505d382bbc545af43d6000803e6038573d6000fd5b3d6000f3';

export function depositWalletOf(eoa: string): string {
  const factory = CONTRACTS.depositWalletFactory;
  const args = AbiCoder.defaultAbiCoder().encode(['address', 'bytes32'], [factory, zeroPadValue(eoa, 32)]);
  const argsLength = BigInt((args.length - 2) / 2);
  const prefix = toBeHex(0x61003d3d8160233d3973n + (argsLength << 56n), 10);
  const initCode = concat([prefix, IMPLEMENTATION, '0x6009', CLONE_HEAD, CLONE_TAIL, args]);
  return getCreate2Address(factory, keccak256(args), keccak256(initCode));
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

export interface BatchCall {
  target: string;
  value: bigint;
  data: string;
}

/** The digest the owner signs for a batch: EIP-712 `Batch` under the wallet's own domain (§8.4). */
export function batchDigest(wallet: string, nonce: bigint, deadline: bigint, calls: BatchCall[]): string {
  return TypedDataEncoder.hash(
    { name: 'DepositWallet', version: '1', chainId: CHAIN_ID, verifyingContract: wallet },
    BATCH_TYPES,
    { wallet, nonce, deadline, calls },
  );
}

/** A `Batch` as the owner signs it and the factory's `proxy` takes it. */
export interface Batch {
  wallet: string;
  nonce: bigint;
  deadline: bigint;
  calls: BatchCall[];
}

/**
 * The emulated relayer's operator: the account that signs and pays for the relayer's transactions,
 * and the one caller the factory accepts (`onlyOperator`). A fixed key, the same in every run.
 */
export const RELAYER_OPERATOR = new Wallet(keccak256(toUtf8Bytes('emulated polymarket relayer operator')));

interface DeployedWallet {
  owner: string;
  nonce: bigint;
}

/** The wallets and their nonces at one moment (a dry run of the factory restores them). */
export type DepositWalletsSnapshot = Map<string, DeployedWallet>;

export class DepositWallets {
  private readonly wallets = new Map<string, DeployedWallet>();

  reset(): void {
    this.wallets.clear();
  }

  /** Deploys the wallet of `eoa` (idempotent, as CREATE2 to an occupied address is a no-op for the relayer). */
  deploy(eoa: string): { address: string; created: boolean } {
    const address = depositWalletOf(eoa);
    const created = !this.wallets.has(address.toLowerCase());
    if (created) this.wallets.set(address.toLowerCase(), { owner: getAddress(eoa), nonce: 0n });
    return { address, created };
  }

  /** The owner EOA of a deployed deposit wallet, checksummed; undefined for any other address. */
  ownerOf(wallet: string): string | undefined {
    return this.wallets.get(wallet.toLowerCase())?.owner;
  }

  nonceOf(wallet: string): bigint {
    return this.wallets.get(wallet.toLowerCase())?.nonce ?? 0n;
  }

  /** The wallet consumed `nonce` (its batch executed). */
  bumpNonce(wallet: string): void {
    const w = this.wallets.get(wallet.toLowerCase());
    if (w) w.nonce += 1n;
  }

  snapshot(): DepositWalletsSnapshot {
    return new Map([...this.wallets].map(([k, w]) => [k, { ...w }] as const));
  }

  restore(s: DepositWalletsSnapshot): void {
    this.wallets.clear();
    for (const [k, w] of s) this.wallets.set(k, { ...w });
  }

  /**
   * Why the wallet refuses to run `batch` signed with `signature` at `nowS` (unix seconds), or
   * undefined when it runs it: deployed, deadline not passed, the wallet's nonce, signed by its
   * owner. The relayer answers these as 400s before sending; on chain they revert the batch.
   */
  batchRefusal(batch: Batch, signature: string, nowS: bigint): string | undefined {
    const owner = this.ownerOf(batch.wallet);
    if (!owner) return `deposit wallet ${getAddress(batch.wallet)} is not deployed`;
    if (batch.deadline < nowS) return 'deadline expired';
    const expected = this.nonceOf(batch.wallet);
    if (batch.nonce !== expected) return `invalid nonce: expected ${expected}, got ${batch.nonce}`;
    let signer: string | undefined;
    try {
      signer = recoverAddress(batchDigest(batch.wallet, batch.nonce, batch.deadline, batch.calls), signature);
    } catch {
      signer = undefined;
    }
    return signer === owner ? undefined : 'invalid signature';
  }
}
