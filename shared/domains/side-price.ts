/**
 * The price of one side of a binary market from its YES price (the NO side pays 1 − YES), rounded
 * to 12 decimals so that 1 − 0.7 reads 0.3. The same on every venue (on sim the LMSR clamp is
 * symmetric, so this equals pricing NO directly).
 */
export const sidePrice = (yesPrice: number, side: 'yes' | 'no') =>
  side === 'yes' ? yesPrice : Math.round((1 - yesPrice) * 1e12) / 1e12;
