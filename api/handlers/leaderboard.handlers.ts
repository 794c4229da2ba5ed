import { sdkAgentsBoard } from '../../shared/domains/reads/leaderboard.js';
import type { HandlersFor } from '../endpoints/endpoint.js';
import type { leaderboardEndpoints } from '../endpoints/leaderboard.endpoints.js';

export const leaderboardHandlers: HandlersFor<typeof leaderboardEndpoints> = {
  sdkAgentsLeaderboard: async ({ deps, query }) => sdkAgentsBoard(deps.models, query.limit, query.offset),
  // Native agents and real-venue trader boards have no members on this service yet: empty lists, never null.
  allLeaderboards: async ({ deps, query }) => ({
    sdk_agents: (await sdkAgentsBoard(deps.models, query.limit, 0)).entries,
    native_agents: [],
    polymarket: [],
    kalshi: [],
  }),
};
