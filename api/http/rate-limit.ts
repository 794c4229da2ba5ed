import type { RequestHandler } from 'express';
import type { RedisClient } from '../../shared/infra/redis.js';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { rateLimited, unavailable } from '../../shared/infra/errors.js';

export interface RateLimitRule {
  /** Stable name, part of the Redis key. */
  name: string;
  points: number;
  durationSeconds: number;
  /** e.g. "registrations per minute per IP", for the error text. */
  describe: string;
  key: (req: Parameters<RequestHandler>[0]) => string;
}

/** A Redis-backed fixed-window limit shared by every API replica; a refusal is 429 with Retry-After. */
export function rateLimit(redis: RedisClient, prefix: string, rule: RateLimitRule): RequestHandler {
  const limiter = new RateLimiterRedis({
    storeClient: redis,
    keyPrefix: `${prefix}:rl:${rule.name}`,
    points: rule.points,
    duration: rule.durationSeconds,
  });
  return async (req, res, next) => {
    try {
      const state = await limiter.consume(rule.key(req));
      res.setHeader('X-RateLimit-Limit', String(rule.points));
      res.setHeader('X-RateLimit-Remaining', String(state.remainingPoints));
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw unavailable('The rate limiter', err);
      throw rateLimited(rule.points, rule.describe, err.msBeforeNext);
    }
    next();
  };
}
