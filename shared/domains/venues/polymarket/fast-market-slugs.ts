/**
 * Polymarket's rolling crypto up-or-down markets have slugs made from the window's start time,
 * e.g. `btc-updown-15m-1767200400` (polymarket.md §2.2 sample). Knowing the clock is enough to name
 * the current and next windows, so they are fetched by slug instead of searched for.
 */
export const FAST_ASSETS = ['btc', 'eth', 'sol'] as const;
export const FAST_WINDOW_SECONDS = { '5m': 300, '15m': 900 } as const;

/** Slugs of the window running at `now` and the `ahead` windows after it, per asset and length. */
export function fastMarketSlugs(now: Date, ahead = 2): string[] {
  const t = Math.floor(now.getTime() / 1000);
  const slugs: string[] = [];
  for (const [window, seconds] of Object.entries(FAST_WINDOW_SECONDS)) {
    const start = t - (t % seconds);
    for (let i = 0; i <= ahead; i++)
      for (const asset of FAST_ASSETS) slugs.push(`${asset}-updown-${window}-${start + i * seconds}`);
  }
  return slugs;
}
