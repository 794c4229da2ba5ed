import type { LedgerLeg, TradeRecord } from './clob-records.js';
import { HOUSE_ADDRESS } from './contracts.js';
import type { CostBasis } from './cost-basis.js';
import { LedgerError, UNIT, type WalletLedger } from './wallet-ledger.js';

// Moves money for fills and rolls it back for FAILED trades. Users pay through the exchange
// (pUSD `transferFrom` against their allowance, CTF transfers as an approved operator), exactly
// what the on-chain settlement needs; the house — the synthetic book's market maker — never runs
// out: what it pays is minted, what it receives accumulates at HOUSE_ADDRESS.

const isHouse = (address: string) => address.toLowerCase() === HOUSE_ADDRESS;

/** Applies one leg; `exchange` is the spender/operator for user debits. */
export function applyLeg(ledger: WalletLedger, leg: LedgerLeg, exchange: string | undefined): void {
  const pusd = leg.asset === 'pusd';
  if (isHouse(leg.from)) {
    if (pusd) ledger.mintPusd(leg.to, leg.amount);
    else ledger.mintTokens(leg.to, leg.asset, leg.amount);
  } else if (pusd) {
    ledger.transferPusd(leg.from, leg.to, leg.amount, exchange);
  } else {
    ledger.transferTokens(leg.from, leg.to, leg.asset, leg.amount, exchange);
  }
}

/**
 * One fill between a buyer and a seller: pUSD one way, shares the other, and the Data API's
 * entry prices of both users. Returns the legs, for a later rollback.
 */
export function settleFill(
  ledger: WalletLedger,
  basis: CostBasis,
  fill: { buyer: string; seller: string; tokenId: string; shares: bigint; cost: bigint; exchange: string },
): LedgerLeg[] {
  const { buyer, seller, tokenId, shares, cost, exchange } = fill;
  const price = Number((cost * UNIT) / (shares === 0n ? 1n : shares)) / 1e6;
  const n = Number(shares) / 1e6;
  if (!isHouse(buyer))
    basis.recordBuy(buyer, tokenId, Number(ledger.tokenBalance(buyer, tokenId)) / 1e6, n, price);
  if (!isHouse(seller)) basis.recordSell(seller, tokenId, n, price);
  const legs: LedgerLeg[] = [
    { asset: 'pusd', from: buyer, to: seller, amount: cost },
    { asset: tokenId, from: seller, to: buyer, amount: shares },
  ];
  for (const leg of legs) if (leg.amount > 0n) applyLeg(ledger, leg, exchange);
  return legs;
}

/**
 * Reverses a trade's legs, newest first. A leg the receiver can no longer give back (the tokens
 * were sold on in the meantime) is skipped: the emulator does not invent negative balances.
 * Returns how many legs could not be reversed.
 */
export function rollBack(ledger: WalletLedger, trade: TradeRecord): number {
  let skipped = 0;
  for (const leg of [...trade.legs].reverse()) {
    if (leg.amount === 0n) continue;
    try {
      applyLeg(ledger, { asset: leg.asset, from: leg.to, to: leg.from, amount: leg.amount }, undefined);
    } catch (err) {
      if (!(err instanceof LedgerError)) throw err;
      skipped++;
    }
  }
  return skipped;
}
