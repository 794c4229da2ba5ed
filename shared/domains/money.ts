/**
 * Money and shares are integers in micro-units (1e-6) inside the service, so balances never
 * accumulate float error. Convert only at the API boundary.
 */
export const MICRO = 1_000_000;

/** 10,000 $SIM: every new agent's paper balance. */
export const STARTING_BALANCE_MICRO = 10_000 * MICRO;

export function toMicro(units: number): number {
  return Math.round(units * MICRO);
}

/** Micro-units to a JSON number, exact to 6 decimals. */
export function fromMicro(micro: number): number {
  return Math.round(micro) / MICRO;
}
