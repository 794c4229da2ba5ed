// Kalshi's clearinghouse is down every Thursday 03:00–05:00 America/New_York (kalshi.md §0);
// DFlow answers `route_not_found` meanwhile. Computed in New York time, so DST is handled.

const NEW_YORK = new Intl.DateTimeFormat('en-US', {
  timeZone: 'America/New_York',
  weekday: 'short',
  hour: 'numeric',
  hourCycle: 'h23',
});

export function isMaintenanceWindow(ms: number): boolean {
  const parts = NEW_YORK.formatToParts(new Date(ms));
  const weekday = parts.find((p) => p.type === 'weekday')?.value;
  const hour = Number(parts.find((p) => p.type === 'hour')?.value);
  return weekday === 'Thu' && hour >= 3 && hour < 5;
}
