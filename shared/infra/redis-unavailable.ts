import { OUTAGE_RETRY_AFTER_SECONDS, outage } from './errors.js';

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

export const redisUnavailable = (cause: unknown) =>
  outage(
    'redis_unavailable',
    'The queue and cache store is unavailable right now',
    `Retry in ${OUTAGE_RETRY_AFTER_SECONDS} seconds (see Retry-After); a trade sent with an idempotency_key is safe to send again.`,
    cause,
  );
