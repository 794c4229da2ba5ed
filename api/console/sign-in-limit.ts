import type { Request } from 'express';
import type { Redis } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';

/** Wrong operator tokens allowed per client IP before sign-in is refused for the rest of the window. */
export const FAILED_SIGN_INS_PER_WINDOW = 10;
const WINDOW_SECONDS = 15 * 60;

/**
 * Counts failed console sign-ins per client IP (Redis, shared by every API replica): past the limit
 * the form is refused until the window ends, so a token cannot be guessed by volume. Only failures
 * count: an operator who signs in often is never locked out by their own successes.
 */
export function signInLimit(redis: Redis, prefix: string) {
  const failures = new RateLimiterRedis({
    storeClient: redis,
    keyPrefix: `${prefix}:rl:console-sign-in`,
    points: FAILED_SIGN_INS_PER_WINDOW,
    duration: WINDOW_SECONDS,
  });
  const keyOf = (req: Request) => req.ip ?? 'unknown';
  return {
    /** Seconds until this client may try again; 0 when it may now. */
    async lockedFor(req: Request): Promise<number> {
      const state = await failures.get(keyOf(req));
      return state && state.consumedPoints >= FAILED_SIGN_INS_PER_WINDOW
        ? Math.max(1, Math.ceil(state.msBeforeNext / 1000))
        : 0;
    },
    async failed(req: Request): Promise<void> {
      // Rejects once the points are used up: that is the lock itself, not an error here.
      await failures.consume(keyOf(req)).catch((err: unknown) => {
        if (err instanceof Error) throw err;
      });
    },
  };
}
