import type { Logger } from '../infra/logger.js';
import { renewNameKeys } from '../domains/agents/renew-name-keys.js';
import { moveVenueColumnsIntoRef } from '../domains/markets/venue-ref-migration.js';
import type { Models } from '../domains/models.js';
import { kalshiLegacyColumns } from '../domains/venues/kalshi/legacy-market-columns.js';
import { polymarketLegacyColumns } from '../domains/venues/polymarket/legacy-market-columns.js';

/**
 * Rewrites of documents stored by earlier versions, run by every process at start after the indexes
 * are built. Each one is idempotent and resumable with single-document guarded updates (the
 * database has no multi-document transactions), so processes starting together may run them at
 * once, and a process killed during one leaves the rest to the next start. Here, in the composition
 * root, because each venue contributes its own legacy columns.
 */
export async function migrateStoredDocuments(models: Models, log: Logger): Promise<void> {
  const venues = [polymarketLegacyColumns, kalshiLegacyColumns];
  const { moved } = await moveVenueColumnsIntoRef(models.Market, venues);
  if (moved) log.info({ moved }, 'markets: per-venue columns moved into venueRef');
  const renewed = await renewNameKeys(models);
  if (renewed) log.info({ renewed }, 'agents: lookalike name keys renewed');
}
