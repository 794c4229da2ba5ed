import { sdkAgentsBoard, venueBoard } from '../../shared/domains/reads/leaderboard.js';
import type { Deps } from '../../shared/composition/deps.js';
import { sharedRead } from '../http/shared-read.js';
import type { HandlersFor } from '../endpoints/endpoint.js';
import type { leaderboardEndpoints } from '../endpoints/leaderboard.endpoints.js';

/** A board page, shared across callers for READ_CACHE_SECONDS (it is re-marked once a minute anyway). */
export const sdkAgentsPage = (deps: Deps, limit: number, offset: number) =>
  sharedRead(deps, 'leaderboard', { limit, offset }, () => sdkAgentsBoard(deps.models, limit, offset));

export const leaderboardHandlers: HandlersFor<typeof leaderboardEndpoints> = {
  sdkAgentsLeaderboard: async ({ deps, query }) => sdkAgentsPage(deps, query.limit, query.offset),
  // Native agents and real-venue trader boards have no members on this service yet: empty lists, never null.
  allLeaderboards: async ({ deps, query }) => ({
    sdk_agents: (await sdkAgentsPage(deps, query.limit, 0)).entries,
    native_agents: [],
    polymarket: [],
    kalshi: [],
  }),
  venueLeaderboard: async ({ deps, params, query }) => {
    const compute = () =>
      venueBoard(
        deps.models,
        params.venue,
        query.trader_type,
        query.limit,
        query.offset,
        deps.env.LEADERBOARD_LINK_WINDOW_HOURS,
      );
    const key = {
      venue: params.venue,
      traderType: query.trader_type,
      limit: query.limit,
      offset: query.offset,
    };
    return sharedRead(deps, 'venue-leaderboard', key, compute);
  },
};
