import type { Logger } from '../infra/logger.js';
import { moveVenueColumnsIntoRef } from './markets/venue-ref-migration.js';
import type { Models } from './models.js';

/**
 * Rewrites of documents stored by earlier versions, run by every process at start after the indexes
 * are built. Each one is idempotent and resumable with single-document guarded updates (the
 * database has no multi-document transactions), so processes starting together may run them at
 * once, and a process killed during one leaves the rest to the next start.
 */
export async function migrateStoredDocuments(models: Models, log: Logger): Promise<void> {
  const { moved } = await moveVenueColumnsIntoRef(models.Market);
  if (moved) log.info({ moved }, 'markets: per-venue columns moved into venueRef');
}
