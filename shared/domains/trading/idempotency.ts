import { createHash } from 'node:crypto';
import type { RedisClient } from '../../infra/redis.js';
import { AppError, RequestValidationError, outage } from '../../infra/errors.js';
import { redisScript } from '../../infra/redis-script.js';

/** Completed answers are replayed for 24 hours (spec §4.2). */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
/** A first request that died without answering frees its key after this long. */
const IN_FLIGHT_TTL_SECONDS = 120;

/**
 * One key per agent and idempotency key, and every script below touches only that one: on a Redis
 * Cluster each lands in its own slot, so it needs no hash tag (and the names of the keys already
 * stored, replayed for 24 h, stay valid).
 */
const redisKeyOf = (prefix: string, agentId: string, key: string) =>
  `${prefix}:idem:${agentId}:${createHash('sha256').update(key).digest('hex')}`;

const cacheUnavailable = (cause: unknown) =>
  outage(
    'idempotency_unavailable',
    'Idempotency cache unavailable; the trade was not placed',
    'Retry in a few seconds (see Retry-After) with the same idempotency_key.',
    cause,
  );

/**
 * What a key is bound to: the trade a request asks for (venue, market, side, action, quantized amount
 * and shares, limit price, order type). Free text (reasoning, source) is left out: a retry may word it anew.
 */
export interface TradeIntent {
  venue: string;
  marketId: string;
  side: string;
  action: string;
  amountMicro: number;
  sharesMicro: number;
  limitPrice: number | null;
  orderType: string | null;
}

/** A short digest of the intent, stored with the key in the same Redis value (no extra round trip). */
export const fingerprintOf = (intent: TradeIntent) =>
  createHash('sha256')
    .update(
      JSON.stringify([
        intent.venue,
        intent.marketId,
        intent.side,
        intent.action,
        intent.amountMicro,
        intent.sharesMicro,
        intent.limitPrice,
        intent.orderType,
      ]),
    )
    .digest('base64url')
    .slice(0, 22);

/** The Redis value of a key: the trade in flight or the completed answer, with the request's fingerprint. */
interface StoredClaim<T> {
  inFlight?: string;
  answer?: T;
  /** Absent on keys stored before fingerprints: those replay as before. */
  fp?: string;
}

export const keyReused = (key: string) =>
  new RequestValidationError(
    [
      {
        loc: ['body', 'idempotency_key'],
        msg: 'idempotency_key_reused: this key was first sent with a different trade (venue, market, side, action, amount, shares, price or order type)',
        type: 'idempotency_key_reused',
        input: key,
        ctx: {},
      },
    ],
    'Use a new idempotency_key for a new trade; resend a key only with the identical request, to get its first answer.',
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
  | {
      state: 'in-flight';
      tradeId: string;
      /**
       * Claims the key for this request instead, if it still points at that trade: for a trade that
       * was stopped before it ran, whose request could not free the key (Redis was down). Null when
       * another request changed the key meanwhile.
       */
      takeOver: () => Promise<FirstClaim<T> | null>;
    };

type FirstClaim<T> = Extract<IdempotencyClaim<T>, { state: 'first' }>;

/** DEL only if the value is still this request's claim: never a later request's claim. */
const deleteIfUnchanged = redisScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`);
/** Retries of a release that Redis could not take: 250 ms doubling, about 30 s in all. */
const RELEASE_RETRIES = 7;

/**
 * Frees a claim that placed nothing. When Redis is down at that moment (a restart takes about a
 * second), the release is retried in the background: otherwise the caller, told to retry, would get
 * "in flight" for a trade that does not exist until the claim expired (120 s; seen in a chaos run).
 */
async function releaseClaim(redis: RedisClient, redisKey: string, claim: string, attempt = 0): Promise<void> {
  try {
    await deleteIfUnchanged(redis, [redisKey], [claim]);
  } catch {
    if (attempt >= RELEASE_RETRIES) return;
    setTimeout(() => void releaseClaim(redis, redisKey, claim, attempt + 1), 250 * 2 ** attempt).unref();
  }
}

/** SET only if the value is still the one read: a compare-and-set in one round trip. */
const replaceIfUnchanged = redisScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
end
return false`);

/**
 * SET only while the key holds this request's claim, or nothing (it expired): a slow request never
 * writes over a claim that a resend took over since.
 */
const setIfOurs = redisScript(`local v = redis.call('GET', KEYS[1])
if v == false or v == ARGV[1] then
  return redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
end
return false`);

/**
 * The spec's `idempotency_key` (per agent). The first request claims the key in Redis (SET NX) with
 * the trade id it will place; its completed answer replaces the claim and is replayed for 24 h. A
 * duplicate while the first is in flight learns the trade id (the caller decides: replay the outcome
 * if the trade has finished since, else a retryable 503). Redis unavailable: fail closed (503).
 */
export async function claimIdempotencyKey<T>(
  redis: RedisClient,
  prefix: string,
  agentId: string,
  key: string,
  tradeId: string,
  fingerprint: string,
): Promise<IdempotencyClaim<T>> {
  const redisKey = redisKeyOf(prefix, agentId, key);
  const claim = JSON.stringify({ inFlight: tradeId, fp: fingerprint });
  const store = (value: StoredClaim<T>, ttlSeconds: number) =>
    setIfOurs(redis, [redisKey], [claim, JSON.stringify({ ...value, fp: fingerprint }), ttlSeconds]);
  const first: FirstClaim<T> = {
    state: 'first',
    complete: async (answer) => {
      await store({ answer }, IDEMPOTENCY_TTL_SECONDS).catch(() => undefined);
    },
    keepPointing: async () => {
      await store({ inFlight: tradeId }, IDEMPOTENCY_TTL_SECONDS).catch(() => undefined);
    },
    abandon: () => releaseClaim(redis, redisKey, claim),
  };
  let parsed: StoredClaim<T>;
  let stored: string | null;
  try {
    const claimed = await redis.set(redisKey, claim, 'EX', IN_FLIGHT_TTL_SECONDS, 'NX');
    if (claimed === 'OK') return first;
    stored = await redis.get(redisKey);
    if (stored === null) return claimIdempotencyKey(redis, prefix, agentId, key, tradeId, fingerprint); // expired in between
    parsed = JSON.parse(stored) as StoredClaim<T>;
  } catch (err) {
    throw cacheUnavailable(err);
  }
  if (parsed.fp !== undefined && parsed.fp !== fingerprint) throw keyReused(key);
  if (parsed.answer !== undefined) return { state: 'replay', answer: parsed.answer };
  const seen = stored;
  return {
    state: 'in-flight',
    tradeId: parsed.inFlight!,
    takeOver: async () => {
      try {
        const replaced = await replaceIfUnchanged(redis, [redisKey], [seen, claim, IN_FLIGHT_TTL_SECONDS]);
        return replaced === 'OK' ? first : null;
      } catch (err) {
        throw cacheUnavailable(err);
      }
    },
  };
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
  redis: RedisClient,
  prefix: string,
  agentId: string,
  key: string,
  fingerprint: string,
  answer: T,
): Promise<void> {
  const value: StoredClaim<T> = { answer, fp: fingerprint };
  await redis
    .set(redisKeyOf(prefix, agentId, key), JSON.stringify(value), 'EX', IDEMPOTENCY_TTL_SECONDS)
    .catch(() => undefined);
}

/** Every idempotency key stored under `prefix`, as a SCAN pattern. */
export const idempotencyKeyPattern = (prefix: string) => `${prefix}:idem:*`;

/**
 * The trade a stored idempotency value points at: the trade of a cached answer, or the one a claim
 * placed; null when it names none (an answer given before any trade was recorded) or is unreadable.
 */
export function tradeIdOfStoredIdempotency(stored: string): string | null {
  try {
    const parsed = JSON.parse(stored) as { inFlight?: unknown; answer?: { trade_id?: unknown } };
    const id = parsed.answer !== undefined ? parsed.answer?.trade_id : parsed.inFlight;
    return typeof id === 'string' && id ? id : null;
  } catch {
    return null;
  }
}
