import { createHash } from 'node:crypto';
import { PublicKey } from '@solana/web3.js';
import { encodeBase58 } from './base58.js';

// Solana and DFlow constants of reference kalshi.md §0 and §3.3, and the deterministic addresses
// the emulator derives, so the same fixture has the same mints in every run (stable snapshots).

export const USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
export const CASH_MINT = 'CASHx9KJUStyftLFWGvEVf59SGeG9sh5FfcnZMVPCASH';
export const SYSTEM_PROGRAM = '11111111111111111111111111111111';
export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
export const ATA_PROGRAM = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';
export const MEMO_PROGRAM = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';
export const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111';

/** Settlement rails: every market has both; USDC lives in classic SPL Token accounts, CASH in Token-2022. */
export const SETTLEMENT_MINTS = [USDC_MINT, CASH_MINT] as const;
export const tokenProgramOf = (mint: string) => (mint === USDC_MINT ? TOKEN_PROGRAM : TOKEN_2022_PROGRAM);

/** Every mint the emulator knows has 6 decimals (USDC, CASH, outcome tokens). */
export const DECIMALS = 6;
export const ATOMIC = 1_000_000n;
export const LAMPORTS_PER_SOL = 1_000_000_000n;

/** Fee model: 5000 lamports per signature plus the priority fee the /order transaction asks for. */
export const LAMPORTS_PER_SIGNATURE = 5_000n;
export const COMPUTE_UNIT_LIMIT = 200_000;
export const COMPUTE_UNIT_PRICE_MICROLAMPORTS = 1_000;
export const PRIORITY_FEE_LAMPORTS = BigInt(
  Math.ceil((COMPUTE_UNIT_LIMIT * COMPUTE_UNIT_PRICE_MICROLAMPORTS) / 1_000_000),
);
/** Rent-exempt minimum of a data account: (128 + size) × 3480 × 2 lamports, as the runtime computes it. */
export const rentExempt = (size: number) => BigInt((128 + size) * 3_480 * 2);
export const TOKEN_ACCOUNT_SIZE = 165;
/** A Token-2022 outcome account carries the ImmutableOwner extension: 170 bytes. */
export const TOKEN_2022_ACCOUNT_SIZE = 170;
/** What `/order` reports as `initPredictionMarketCost` for a market DFlow has not tokenized yet. */
export const INIT_PREDICTION_MARKET_COST = 14_000_000n;
/** A blockhash lives this many blocks (DFlow: "about 150 blocks"). */
export const BLOCKHASH_VALIDITY = 150;

/** A 32-byte value from a label, base58: deterministic mints, ledgers and blockhashes. */
export function derivedAddress(label: string): string {
  return encodeBase58(createHash('sha256').update(`kalshi-emulator:${label}`).digest());
}

/** The associated token account of (owner, mint), the PDA of [owner, token program, mint]. */
export function associatedTokenAddress(owner: string, mint: string): string {
  const [address] = PublicKey.findProgramAddressSync(
    [
      new PublicKey(owner).toBuffer(),
      new PublicKey(tokenProgramOf(mint)).toBuffer(),
      new PublicKey(mint).toBuffer(),
    ],
    new PublicKey(ATA_PROGRAM),
  );
  return address.toBase58();
}
