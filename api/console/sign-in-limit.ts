import type { Request } from 'express';
import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

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
    /**
     * Counts this attempt before the token is checked (so parallel attempts cannot all pass a read
     * of the count); answers the seconds until this client may try again, 0 when it may now.
     */
    async attempt(req: Request): Promise<number> {
      try {
        await failures.consume(keyOf(req));
        return 0;
      } catch (err) {
        if (err instanceof RateLimiterRes) return Math.max(1, Math.ceil(err.msBeforeNext / 1000));
        throw err;
      }
    },
    /** The token was right: the attempt is given back, so only failures count. */
    async succeeded(req: Request): Promise<void> {
      await failures.reward(keyOf(req), 1);
    },
  };
}
