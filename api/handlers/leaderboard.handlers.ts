import { sdkAgentsBoard, type TraderType } from '../../shared/domains/reads/leaderboard.js';
import { venueBoard } from '../../shared/domains/reads/venue-boards.js';
import type { VenueId } from '../../shared/domains/venues/venue-id.js';
import type { Deps } from '../../shared/composition/deps.js';
import { sharedRead } from '../http/shared-read.js';
import type { HandlersFor } from '../endpoints/endpoint.js';
import type { leaderboardEndpoints } from '../endpoints/leaderboard.endpoints.js';

/** A board page, shared across callers for READ_CACHE_SECONDS (it is re-marked once a minute anyway). */
export const sdkAgentsPage = (deps: Deps, limit: number, offset: number) =>
  sharedRead(deps, 'leaderboard', { limit, offset }, () => sdkAgentsBoard(deps.models, limit, offset));

/** A venue's board page (a read model re-marked each minute), shared across callers for READ_CACHE_SECONDS. */
export const venuePage = (
  deps: Deps,
  venue: VenueId,
  traderType: TraderType,
  limit: number,
  offset: number,
) =>
  sharedRead(deps, 'venue-leaderboard', { venue, traderType, limit, offset }, () =>
    venueBoard(deps.models, venue, traderType, limit, offset),
  );

export const leaderboardHandlers: HandlersFor<typeof leaderboardEndpoints> = {
  sdkAgentsLeaderboard: async ({ deps, query }) => sdkAgentsPage(deps, query.limit, query.offset),
  // Native agents (the hosted service's own, not SDK-registered) have no members on this service:
  // an empty list, never null. The real-venue boards are the agents ranked on each venue.
  allLeaderboards: async ({ deps, query }) => {
    const [sdk, polymarket, kalshi] = await Promise.all([
      sdkAgentsPage(deps, query.limit, 0),
      venuePage(deps, 'polymarket', 'all', query.limit, 0),
      venuePage(deps, 'kalshi', 'all', query.limit, 0),
    ]);
    return {
      sdk_agents: sdk.entries,
      native_agents: [],
      polymarket: polymarket.entries,
      kalshi: kalshi.entries,
    };
  },
  venueLeaderboard: async ({ deps, params, query }) =>
    venuePage(deps, params.venue, query.trader_type, query.limit, query.offset),
};
