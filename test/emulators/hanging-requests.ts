import type { NextFunction, Response } from 'express';

/**
 * Requests an emulator's `slow` and `timeout` faults hold back: `slow` answers normally `ms` late,
 * `timeout` never answers and drops the connection after `ms`. `release` drops every one still
 * held (on shutdown), so no timer keeps the process alive.
 */
export function hangingRequests() {
  const held = new Set<{ timer: NodeJS.Timeout; res: Response }>();
  const hold = (res: Response, ms: number, then: () => void) => {
    const entry = {
      res,
      timer: setTimeout(() => {
        held.delete(entry);
        then();
      }, ms),
    };
    held.add(entry);
    return entry.timer;
  };
  return {
    slow: (res: Response, ms: number, next: NextFunction) => void hold(res, ms, next),
    timeout: (res: Response, ms: number) => void hold(res, ms, () => res.destroy()).unref(),
    release: () => {
      for (const h of held) {
        clearTimeout(h.timer);
        h.res.destroy();
      }
      held.clear();
    },
  };
}
