/**
 * How a watched wallet's fill becomes a mirror (client-contract §12.1): the whale's shares ×
 * `mirror_fraction`, capped at `max_size` shares, × the whale's price, in venue units rounded down
 * to a cent; the daily cap then bounds it further (daily-cap.ts). All quantities in micro-units.
 */
export const CENT_MICRO = 10_000;

export interface MirrorRule {
  mirrorFraction: number;
  maxSharesMicro: number;
}

/** The shares mirrored: a fraction of the whale's, at most `max_size`. */
export function mirrorSharesMicro(whaleSharesMicro: number, rule: MirrorRule): number {
  return Math.min(Math.floor(whaleSharesMicro * rule.mirrorFraction), rule.maxSharesMicro);
}

/**
 * The mirror's amount at the whale's price, rounded down to a whole cent (what the daily cap counts
 * and the skill trades). The small epsilon keeps a product like 0.29 × 1e6 from losing a cent to
 * binary floating point.
 */
export function mirrorAmountMicro(whaleSharesMicro: number, price: number, rule: MirrorRule): number {
  const raw = (mirrorSharesMicro(whaleSharesMicro, rule) * price) / CENT_MICRO;
  return Math.max(0, Math.floor(raw + 1e-9)) * CENT_MICRO;
}

/**
 * A fill makes a signal only when the whale traded at least the agent's `min_size` and the
 * watchlist entry's own `min_size` (shares).
 */
export function meetsMinSize(
  whaleSharesMicro: number,
  configMinMicro: number,
  entryMinMicro: number,
): boolean {
  return whaleSharesMicro >= Math.max(configMinMicro, entryMinMicro);
}
