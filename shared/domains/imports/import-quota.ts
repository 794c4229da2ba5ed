import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';
import { DailyQuota } from '../limits/daily-quota.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type ImportQuotaDeps = Pick<InfraDeps, 'env' | 'redis'> & { models: Models };

/** The daily import quota, per agent (spec §8; TIER_IMPORTS_PER_DAY). */
export const importQuota = (deps: Pick<ImportQuotaDeps, 'redis' | 'env'>) =>
  new DailyQuota(deps.redis, deps.env.QUEUE_PREFIX, 'imports');

/**
 * Gives an import's quota back, once: the request record's `quota` flag moves charged → refunded
 * in a guarded update, and only the caller that moved it returns the use (to the day it was taken).
 * An import that created nothing, failed, or was never queued costs nothing.
 */
export async function refundImport(
  deps: Pick<ImportQuotaDeps, 'models' | 'redis' | 'env'>,
  importId: string,
): Promise<boolean> {
  const req = await deps.models.MarketImport.findOneAndUpdate(
    { _id: importId, quota: 'charged' },
    { $set: { quota: 'refunded' } },
    { projection: { agentId: 1, createdAt: 1 } },
  ).lean();
  if (!req) return false;
  await importQuota(deps).giveBack(req.agentId, req.createdAt);
  return true;
}
