import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';
import { topUpCatalogue } from '../markets/catalogue.js';
import { closeMarket } from './close-market.js';
import { POOL_VENUE } from '../venues/venue-id.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type ExpireSimMarketsDeps = Pick<InfraDeps, 'clock'> & { models: Models };

/** Below this many open catalogue markets a new generation is added. */
export const CATALOGUE_MIN_OPEN = 100;

/**
 * The `expire-sim-markets` job: sim catalogue markets past `resolves_at` stop trading (closed, they
 * wait for the operator's resolution: nothing outside decides them), and the catalogue is topped up
 * so a long-running instance never runs out of open markets.
 */
export async function expireSimMarkets(
  deps: ExpireSimMarketsDeps,
): Promise<{ closed: number; added: number }> {
  const now = deps.clock();
  const due = await deps.models.Market.find(
    { importSource: POOL_VENUE, status: 'active', resolvesAt: { $lte: now } },
    { _id: 1 },
  )
    .limit(1000)
    .lean();
  let closed = 0;
  for (const m of due) if (await closeMarket(deps.models, m._id, deps.clock)) closed++;
  const open = await deps.models.Market.countDocuments({
    importSource: POOL_VENUE,
    status: 'active',
    resolvesAt: { $gt: now },
  });
  const added = open < CATALOGUE_MIN_OPEN ? (await topUpCatalogue(deps.models.Market, now)).inserted : 0;
  return { closed, added };
}
