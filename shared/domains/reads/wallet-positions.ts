import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';
import type { VenueRegistry } from '../venues/venue-registry.js';
import { cachedRead } from '../../infra/read-cache.js';
import { importedMarketId } from '../imports/imported-market.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type WalletPositionsDeps = Pick<InfraDeps, 'env' | 'redis'> & {
  models: Models;
  venues: VenueRegistry;
};

/** Spec §4.2: a wallet's positions are cached this long, for everyone asking. */
const CACHE_SECONDS = 30;

/**
 * `GET /api/sdk/wallet/{wallet_address}/positions`: any Polymarket wallet's holdings (the venue with
 * public wallets) (the address is
 * checked by the endpoint schema), from the
 * venue's Data API, with this service's market_id where the market is imported.
 */
export async function walletPositions(deps: WalletPositionsDeps, wallet: string) {
  const address = wallet.toLowerCase();
  return cachedRead(
    deps.redis,
    deps.env.QUEUE_PREFIX,
    'wallet-positions',
    address,
    CACHE_SECONDS,
    async () => {
      // A venue failure escapes as VenueHttpError: the API answers it as 503 venue_unavailable.
      const venue = deps.venues.withPublicWallets();
      const rows = await venue.walletPositions(address);
      const ids = rows.map((r) => importedMarketId(venue.id, r.conditionId));
      const here = new Set(
        (await deps.models.Market.find({ _id: { $in: ids } }, { _id: 1 }).lean()).map((m) => m._id),
      );
      const positions = rows.map((r, i) => ({
        market_title: r.title ?? '',
        condition_id: r.conditionId,
        token_id: r.tokenId,
        side: (r.outcome ?? '').toLowerCase(),
        outcome: r.outcome,
        market_slug: r.slug ?? '',
        shares: r.size,
        current_price: r.curPrice ?? 0,
        current_value: r.currentValue ?? 0,
        redeemable: r.redeemable,
        market_id: here.has(ids[i]!) ? ids[i]! : null,
      }));
      return {
        wallet_address: address,
        position_count: positions.length,
        positions,
        total_value: Math.round(positions.reduce((s, p) => s + p.current_value, 0) * 1e6) / 1e6,
      };
    },
  );
}
