import { createHash } from 'node:crypto';
import { encodeBase58 } from '../base58.js';
import {
  associatedTokenAddress,
  BLOCKHASH_VALIDITY,
  rentExempt,
  TOKEN_2022_ACCOUNT_SIZE,
  TOKEN_2022_PROGRAM,
  TOKEN_ACCOUNT_SIZE,
  tokenProgramOf,
} from '../constants.js';

// The emulated Solana ledger: block height and the blockhashes issued at each height (with their
// lastValidBlockHeight), SOL balances, SPL token accounts, and the status of every signature the
// RPC has accepted. Amounts are bigint atomic units. Nothing here knows about HTTP or DFlow.

export const GENESIS_HEIGHT = 310_000_000;
/** Slots run ahead of block height (skipped slots); clients only compare each with itself. */
export const SLOT_LEAD = 21_474_836;
/** A signature counts as finalized this many blocks after it landed. */
export const FINALITY_BLOCKS = 32;

export interface TokenAccount {
  address: string;
  owner: string;
  mint: string;
  program: string;
  amount: bigint;
  lamports: bigint;
}

export interface SignatureRecord {
  signature: string;
  landedHeight: number;
  /** null = success; otherwise the TransactionError JSON (never set today: failures do not land). */
  err: unknown;
  fee: bigint;
}

export class SolanaChain {
  /** Blocks added by admin calls; the clock-driven part is added by `syncHeight`. */
  manualBlocks = 0;
  height = GENESIS_HEIGHT;
  readonly blockhashes = new Map<string, number>();
  readonly lamports = new Map<string, bigint>();
  readonly tokenAccounts = new Map<string, TokenAccount>();
  readonly landed = new Map<string, SignatureRecord>();
  /** Signatures received with skipPreflight (or dropped by a fault) that never landed. */
  readonly unlanded = new Set<string>();
  private blockhashSeq = 0;

  get slot(): number {
    return this.height + SLOT_LEAD;
  }

  syncHeight(clockBlocks: number): void {
    // Never backwards: a blockhash that expired stays expired.
    this.height = Math.max(this.height, GENESIS_HEIGHT + this.manualBlocks + clockBlocks);
  }

  /** A fresh blockhash valid for BLOCKHASH_VALIDITY blocks from now (deterministic per reset). */
  issueBlockhash(): { blockhash: string; lastValidBlockHeight: number } {
    const blockhash = encodeBase58(
      createHash('sha256').update(`blockhash:${this.height}:${this.blockhashSeq++}`).digest(),
    );
    const lastValidBlockHeight = this.height + BLOCKHASH_VALIDITY;
    this.blockhashes.set(blockhash, lastValidBlockHeight);
    return { blockhash, lastValidBlockHeight };
  }

  /** `getLatestBlockhash`: one blockhash per height, so repeated calls in a block agree. */
  latestBlockhash(): { blockhash: string; lastValidBlockHeight: number } {
    const blockhash = encodeBase58(createHash('sha256').update(`block:${this.height}`).digest());
    const lastValidBlockHeight = this.height + BLOCKHASH_VALIDITY;
    if (!this.blockhashes.has(blockhash)) this.blockhashes.set(blockhash, lastValidBlockHeight);
    return { blockhash, lastValidBlockHeight };
  }

  blockhashValid(blockhash: string): boolean {
    const last = this.blockhashes.get(blockhash);
    return last !== undefined && this.height <= last;
  }

  balance(owner: string): bigint {
    return this.lamports.get(owner) ?? 0n;
  }

  addLamports(owner: string, delta: bigint): void {
    this.lamports.set(owner, this.balance(owner) + delta);
  }

  tokenAccount(owner: string, mint: string): TokenAccount | undefined {
    return this.tokenAccounts.get(associatedTokenAddress(owner, mint));
  }

  /** The owner's associated account for the mint, created empty (rent paid by nobody) when missing. */
  ensureTokenAccount(owner: string, mint: string): TokenAccount {
    const address = associatedTokenAddress(owner, mint);
    let account = this.tokenAccounts.get(address);
    if (!account) {
      const program = tokenProgramOf(mint);
      account = {
        address,
        owner,
        mint,
        program,
        amount: 0n,
        lamports: rentExempt(program === TOKEN_2022_PROGRAM ? TOKEN_2022_ACCOUNT_SIZE : TOKEN_ACCOUNT_SIZE),
      };
      this.tokenAccounts.set(address, account);
    }
    return account;
  }

  deleteTokenAccount(owner: string, mint: string): boolean {
    return this.tokenAccounts.delete(associatedTokenAddress(owner, mint));
  }

  tokenBalance(owner: string, mint: string): bigint {
    return this.tokenAccount(owner, mint)?.amount ?? 0n;
  }

  accountsOf(owner: string): TokenAccount[] {
    return [...this.tokenAccounts.values()].filter((a) => a.owner === owner);
  }

  reset(): void {
    this.manualBlocks = 0;
    this.height = GENESIS_HEIGHT;
    this.blockhashSeq = 0;
    this.blockhashes.clear();
    this.lamports.clear();
    this.tokenAccounts.clear();
    this.landed.clear();
    this.unlanded.clear();
  }
}
