import { UNIT } from './wallet-ledger.js';

// Taker fees of fee-enabled markets (CLOB V2, reference §6.4): not part of the signed order, the
// operator charges the taker at match time, fee ≈ shares × rate × (p·(1−p))^exponent in pUSD.
// The same schedule is published on Gamma (`feeSchedule`) and the CLOB (`fd`), so clients that
// size orders around fees (the V2 client's `userUSDCBalance`) see what they will be charged.

export const FEE_SCHEDULE = { rate: 0.25, exponent: 2, takerOnly: true, rebateRate: 0.2 } as const;

/** The taker fee in pUSD base units for `shares` (base units) filled at `priceMicro`. */
export function takerFee(shares: bigint, priceMicro: bigint): bigint {
  const p = Number(priceMicro) / 1e6;
  const perShare = FEE_SCHEDULE.rate * (p * (1 - p)) ** FEE_SCHEDULE.exponent;
  return BigInt(Math.round((Number(shares) / Number(UNIT)) * perShare * 1e6));
}
