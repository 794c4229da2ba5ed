import { derivedAddress, SETTLEMENT_MINTS } from '../constants.js';

// DFlow tokenizes each Kalshi market into a YES and a NO Token-2022 mint per settlement rail
// (kalshi.md §2.1). The emulator derives them from a hash of ticker, side and rail, so a fixture
// has the same mints in every run.

export type Side = 'yes' | 'no';

export interface MarketAccounts {
  marketLedger: string;
  yesMint: string;
  noMint: string;
}

export function marketAccounts(ticker: string, settlementMint: string): MarketAccounts {
  return {
    marketLedger: derivedAddress(`ledger:${ticker}:${settlementMint}`),
    yesMint: derivedAddress(`mint:${ticker}:yes:${settlementMint}`),
    noMint: derivedAddress(`mint:${ticker}:no:${settlementMint}`),
  };
}

export interface OutcomeMint {
  ticker: string;
  side: Side;
  settlementMint: string;
}

/** Every outcome and ledger mint of a market → what it is (for by-mint lookups and routing). */
export function mintsOf(ticker: string): Map<string, OutcomeMint | { ticker: string; ledger: true }> {
  const out = new Map<string, OutcomeMint | { ticker: string; ledger: true }>();
  for (const settlementMint of SETTLEMENT_MINTS) {
    const a = marketAccounts(ticker, settlementMint);
    out.set(a.yesMint, { ticker, side: 'yes', settlementMint });
    out.set(a.noMint, { ticker, side: 'no', settlementMint });
    out.set(a.marketLedger, { ticker, ledger: true });
  }
  return out;
}
