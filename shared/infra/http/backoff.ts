/**
 * Waiting between retries. Exponential so a struggling venue gets room to recover, jittered so
 * many workers that failed together do not retry together, capped so a call never stalls for long.
 */

/**
 * Delay before retry number `retry` (1 for the first retry): base·2^(retry-1), capped, then
 * "equal jitter", i.e. uniformly between half and all of it, so there is always some pause.
 */
export function backoffDelayMs(retry: number, baseMs: number, capMs: number, random = Math.random): number {
  const exponential = Math.min(capMs, baseMs * 2 ** Math.max(0, retry - 1));
  return Math.round(exponential / 2 + (random() * exponential) / 2);
}

/**
 * Retry-After as milliseconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3). Null when absent
 * or unreadable; a date in the past reads as 0.
 */
export function parseRetryAfterMs(header: string | null, now: number): number | null {
  if (header === null) return null;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now);
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
