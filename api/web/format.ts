/** Display formats of the dashboard (the JSON routes carry the raw numbers). */

/** A YES price as cents, e.g. 0.625 → "62.5¢"; a dash when there is none. */
export const cents = (p: number | null | undefined) =>
  p === null || p === undefined ? '—' : `${(p * 100).toFixed(1)}¢`;

const amount = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** Money with two decimals and thousands separators. */
export const money = (n: number) => amount.format(n);

/** The sign of an amount as shown to two decimals: 1, -1, or 0 for anything that rounds to 0.00. */
export const shownSign = (n: number) => Math.sign(Math.round(n * 100));

/** A signed amount, e.g. "+12.50" or "−3.20" (and "0.00" for what rounds to it). */
export const signed = (n: number) =>
  shownSign(n) > 0 ? `+${money(n)}` : shownSign(n) < 0 ? `−${money(-n)}` : money(0);

export const percent = (fraction: number) => `${(fraction * 100).toFixed(1)}%`;

/** "in 3 d 4 h", "in 45 min", "2 h ago"; a dash without a date. */
export function relativeTime(iso: string | null, now: Date): string {
  if (!iso) return '—';
  const seconds = (Date.parse(iso) - now.getTime()) / 1000;
  const abs = Math.abs(seconds);
  const text =
    abs >= 86_400
      ? `${Math.floor(abs / 86_400)} d ${Math.floor((abs % 86_400) / 3600)} h`
      : abs >= 3600
        ? `${Math.floor(abs / 3600)} h ${Math.floor((abs % 3600) / 60)} min`
        : `${Math.max(1, Math.floor(abs / 60))} min`;
  return seconds >= 0 ? `in ${text}` : `${text} ago`;
}

/** A UTC timestamp for a person: "2026-11-25 04:10 UTC". */
export const utc = (iso: string | null) => (iso ? `${iso.slice(0, 16).replace('T', ' ')} UTC` : '—');
