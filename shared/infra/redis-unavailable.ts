import { AppError } from './errors.js';

/**
 * ioredis's ways of saying "no Redis to talk to right now" (as opposed to a command it refused): the
 * connection is closed or not writable, retries per request ran out, the server went away, or a
 * restarted server is still loading its append-only file (`LOADING`) or not ready (`TRYAGAIN`,
 * `MASTERDOWN`). Causes are followed, for errors that wrap one of these.
 */
export function isRedisUnavailable(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (
      e.name === 'MaxRetriesPerRequestError' ||
      e.message === 'Connection is closed.' ||
      e.message.startsWith("Stream isn't writeable") ||
      (e.name === 'ReplyError' && /^(LOADING|TRYAGAIN|MASTERDOWN|BUSY) /.test(e.message))
    )
      return true;
  }
  return false;
}

/** Long enough for the supervisor to restart the embedded Redis (backoff from 250 ms) and load its file. */
export const REDIS_RETRY_AFTER_SECONDS = 2;
/** The header every 503 caused by Redis carries, whichever code names it. */
export const redisRetryAfter = { 'Retry-After': String(REDIS_RETRY_AFTER_SECONDS) };

/** A 503 the clients retry (`retryable`, Retry-After), never the 500 of an unexpected error. */
export const redisUnavailable = (cause: unknown) =>
  new AppError(
    503,
    'redis_unavailable',
    'The queue and cache store is unavailable right now',
    `Retry in ${REDIS_RETRY_AFTER_SECONDS} seconds (see Retry-After); a trade sent with an idempotency_key is safe to send again.`,
    { retryable: true, headers: redisRetryAfter, cause },
  );
