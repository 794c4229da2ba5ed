import type { RedisClient } from './redis.js';
import ipaddr from 'ipaddr.js';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { presentedOperatorToken, isOperatorToken } from './authorization-header.js';
import { AppError } from './errors.js';

/** Wrong operator tokens allowed per client address before every operator door is shut for the rest of the window. */
export const FAILED_SIGN_INS_PER_WINDOW = 10;
const WINDOW_SECONDS = 15 * 60;

/** What a presented operator token turned out to be. */
export type OperatorCheck = 'right' | 'wrong' | 'absent';

/**
 * The operator token checked behind one per-address lockout (Redis, shared by every API replica and
 * process): the console's sign-in form, Bearer and Basic on /api/admin, /metrics, /healthz/ready,
 * the console pages and bull-board all count against the same address, so the token cannot be
 * guessed by volume through whichever door is not limited. Only failures count: an operator or a
 * Prometheus scrape that sends the right token never locks itself out.
 */
export function operatorLockout(redis: RedisClient, prefix: string, operatorToken: string) {
  const failures = new RateLimiterRedis({
    storeClient: redis,
    keyPrefix: `${prefix}:rl:console-sign-in`,
    points: FAILED_SIGN_INS_PER_WINDOW,
    duration: WINDOW_SECONDS,
    // While Redis is down each process counts on its own: /metrics and the console stay usable for
    // the operator in an outage, and guessing is still limited.
    insuranceLimiter: new RateLimiterMemory({ points: FAILED_SIGN_INS_PER_WINDOW, duration: WINDOW_SECONDS }),
  });

  /**
   * Checks `presented` (null: no token was sent, nothing to count) for a client address. Throws a 429
   * when that address is locked out, whether or not the token is right. Each attempt is counted
   * before the token is compared (parallel guesses cannot all pass a read of the count) and given
   * back when it was right.
   */
  async function check(address: string, presented: string | null): Promise<OperatorCheck> {
    if (presented === null) return 'absent';
    const key = lockoutKey(address);
    try {
      await failures.consume(key);
    } catch (err) {
      if (err instanceof RateLimiterRes) throw lockedOut(Math.max(1, Math.ceil(err.msBeforeNext / 1000)));
      throw err;
    }
    if (!isOperatorToken(presented, operatorToken)) return 'wrong';
    await failures.reward(key, 1);
    return 'right';
  }

  return {
    check,
    /** The token of an `Authorization` header (Bearer, or Basic with the token as password). */
    checkHeader: (address: string, header: string | undefined) =>
      check(address, presentedOperatorToken(header)),
  };
}

export type OperatorLockout = ReturnType<typeof operatorLockout>;

/**
 * Whom an address's failures count against: an IPv4 address itself (an IPv4-mapped IPv6 address as
 * its IPv4), an IPv6 address by its /64, the smallest block a host is given, so that a guesser
 * cannot take a fresh address from its own /64 for every ten guesses.
 */
export function lockoutKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const ip = ipaddr.process(address);
  if (ip.kind() === 'ipv4' || ip.range() === 'loopback') return ip.toString();
  const parts = (ip as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16));
  return `${parts.join(':')}::/64`;
}

export const isLockedOut = (err: unknown): err is AppError =>
  err instanceof AppError && err.code === 'too_many_failed_sign_ins';

function lockedOut(seconds: number): AppError {
  return new AppError(
    429,
    'too_many_failed_sign_ins',
    `Too many wrong operator tokens from this address: try again in ${Math.ceil(seconds / 60)} minute(s)`,
    'Wait for Retry-After seconds, then send the right operator token.',
    { headers: { 'Retry-After': String(seconds) } },
  );
}
