import { AppError } from '../../infra/errors.js';

/** A tape's window: the request's text and the instants it names (Unix seconds, end excluded). */
export interface TapeWindow {
  t0: string;
  t1: string;
  startSec: number;
  endSec: number;
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_SECONDS = 86_400;
/** Dates a tape may name: anything else is a typo (and would not fit the store's day folders). */
const EARLIEST_MS = Date.UTC(2000, 0, 1);
const LATEST_MS = Date.UTC(2100, 0, 1);

/** A 422 of a window, with the `detail` the official client shows. */
export const badWindow = (message: string, fix: string) =>
  new AppError(422, 'invalid_window', message, fix, { retryable: false });

/**
 * `t0`/`t1` as ISO dates (midnight UTC) or date-times: the window is [t0, t1), as the official
 * client replays it (`--window 1d` sends yesterday's and today's dates and replays the day between).
 * Refused: unreadable, `t1` not after `t0`, longer than `maxDays`.
 */
export function parseWindow(t0: string, t1: string, maxDays: number): TapeWindow {
  const instant = (text: string, field: 't0' | 't1') => {
    const ms = Date.parse(DATE_ONLY.test(text) ? `${text}T00:00:00Z` : text);
    if (!Number.isFinite(ms))
      throw badWindow(
        `${field} is not an ISO date: ${JSON.stringify(text).slice(0, 60)}`,
        `Send ${field} as an ISO date (2026-11-27) or date-time (2026-11-27T12:00:00Z).`,
      );
    if (ms < EARLIEST_MS || ms > LATEST_MS)
      throw badWindow(
        `${field} (${text}) is outside the years tapes can cover (2000 to 2100)`,
        `Send ${field} as a date between 2000-01-01 and 2100-01-01.`,
      );
    return Math.floor(ms / 1000);
  };
  const startSec = instant(t0, 't0');
  const endSec = instant(t1, 't1');
  if (endSec <= startSec)
    throw badWindow(
      `t1 (${t1}) is not after t0 (${t0})`,
      'The window is [t0, t1) with dates at midnight UTC: to cover all of one day, send the next day as t1.',
    );
  if (endSec - startSec > maxDays * DAY_SECONDS)
    throw badWindow(
      `the window from ${t0} to ${t1} is longer than ${maxDays} days`,
      `Ask for at most ${maxDays} days per tape (TAPE_MAX_WINDOW_DAYS), in several tapes if you need more.`,
    );
  return { t0, t1, startSec, endSec };
}

/** The UTC day (`yyyy-mm-dd`) of a Unix second. */
export const dayOf = (sec: number) => new Date(sec * 1000).toISOString().slice(0, 10);

/** The UTC days a window touches, first to last. */
export function daysOf(w: Pick<TapeWindow, 'startSec' | 'endSec'>): string[] {
  const days: string[] = [];
  for (let d = Math.floor(w.startSec / DAY_SECONDS); d * DAY_SECONDS < w.endSec; d++)
    days.push(dayOf(d * DAY_SECONDS));
  return days;
}
