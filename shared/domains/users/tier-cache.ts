import type { LocalCache } from '../../infra/local-cache.js';
import type { Tier } from './user.model.js';

/** The process's cache of users' tiers by user id (an owner's tier decides its limits). */
export interface TierCache {
  tiers: LocalCache<Tier>;
}
