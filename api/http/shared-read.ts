import type { Deps } from '../../shared/composition/deps.js';
import { cachedRead } from '../../shared/infra/read-cache.js';

/**
 * A public read shared across callers for READ_CACHE_SECONDS through the Redis read cache (computed
 * on every call when that is 0). The same `name` and `params` give the same entry, so the JSON route
 * and the dashboard page showing it serve one computation.
 */
export function sharedRead<T>(
  deps: Deps,
  name: string,
  params: unknown,
  compute: () => Promise<T>,
): Promise<T> {
  return deps.env.READ_CACHE_SECONDS > 0
    ? cachedRead(deps.redis, deps.env.QUEUE_PREFIX, name, params, deps.env.READ_CACHE_SECONDS, compute)
    : compute();
}
