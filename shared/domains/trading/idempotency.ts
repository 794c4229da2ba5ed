import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { AppError } from '../../infra/errors.js';

/** Completed answers are replayed for 24 hours (spec §4.2). */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
/** A first request that died without answering frees its key after this long. */
const IN_FLIGHT_TTL_SECONDS = 120;

const redisKeyOf = (prefix: string, agentId: string, key: string) =>
  `${prefix}:idem:${agentId}:${createHash('sha256').update(key).digest('hex')}`;

const cacheUnavailable = (cause: unknown) =>
  new AppError(
    503,
    'idempotency_unavailable',
    'Idempotency cache unavailable; the trade was not placed',
    'Retry in a few seconds with the same idempotency_key.',
    {
      retryable: true,
      cause,
    },
  );

export type IdempotencyClaim<T> =
  | {
      state: 'first';
      /** Caches the completed answer for 24 h. */
      complete: (answer: T) => Promise<void>;
      /** The answer is not final yet (deadline passed): keep pointing duplicates at the trade for 24 h. */
      keepPointing: () => Promise<void>;
      /** Nothing was placed: free the key. */
      abandon: () => Promise<void>;
    }
  | { state: 'replay'; answer: T }
  | { state: 'in-flight'; tradeId: string };

/**
 * The spec's `idempotency_key` (per agent). The first request claims the key in Redis (SET NX) with
 * the trade id it will place; its completed answer replaces the claim and is replayed for 24 h. A
 * duplicate while the first is in flight learns the trade id (the caller decides: replay the outcome
 * if the trade has finished since, else a retryable 503). Redis unavailable: fail closed (503).
 */
export async function claimIdempotencyKey<T>(
  redis: Redis,
  prefix: string,
  agentId: string,
  key: string,
  tradeId: string,
): Promise<IdempotencyClaim<T>> {
  const redisKey = redisKeyOf(prefix, agentId, key);
  try {
    const claimed = await redis.set(
      redisKey,
      JSON.stringify({ inFlight: tradeId }),
      'EX',
      IN_FLIGHT_TTL_SECONDS,
      'NX',
    );
    if (claimed === 'OK') {
      return {
        state: 'first',
        complete: async (answer) => {
          await redis
            .set(redisKey, JSON.stringify({ answer }), 'EX', IDEMPOTENCY_TTL_SECONDS)
            .catch(() => undefined);
        },
        keepPointing: async () => {
          await redis
            .set(redisKey, JSON.stringify({ inFlight: tradeId }), 'EX', IDEMPOTENCY_TTL_SECONDS)
            .catch(() => undefined);
        },
        abandon: async () => {
          await redis.del(redisKey).catch(() => undefined);
        },
      };
    }
    const stored = await redis.get(redisKey);
    if (stored === null) return claimIdempotencyKey(redis, prefix, agentId, key, tradeId); // expired in between
    const parsed = JSON.parse(stored) as { inFlight?: string; answer?: T };
    return parsed.answer !== undefined
      ? { state: 'replay', answer: parsed.answer }
      : { state: 'in-flight', tradeId: parsed.inFlight! };
  } catch (err) {
    throw cacheUnavailable(err);
  }
}

export const duplicateInFlight = () =>
  new AppError(
    503,
    'idempotency_in_flight',
    'A request with this idempotency_key is still being processed',
    'Retry in a moment with the same idempotency_key to get its result.',
    {
      retryable: true,
      headers: { 'Retry-After': '1' },
    },
  );

/** Stores a completed answer found later (e.g. by a duplicate after the first timed out). */
export async function rememberAnswer<T>(
  redis: Redis,
  prefix: string,
  agentId: string,
  key: string,
  answer: T,
): Promise<void> {
  await redis
    .set(redisKeyOf(prefix, agentId, key), JSON.stringify({ answer }), 'EX', IDEMPOTENCY_TTL_SECONDS)
    .catch(() => undefined);
}
