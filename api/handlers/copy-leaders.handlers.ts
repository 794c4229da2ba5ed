import {
  readCopyLeaders,
  WORLD_CUP_CATEGORY,
} from '../../shared/domains/copytrading/copy-leaders/read-copy-leaders.js';
import type { HandlersFor } from '../endpoints/endpoint.js';
import type { copyLeaderEndpoints } from '../endpoints/copy-leaders.endpoints.js';

export const copyLeaderHandlers: HandlersFor<typeof copyLeaderEndpoints> = {
  copyLeaders: async ({ deps, query }) => readCopyLeaders(deps.models, query, deps.clock()),
  worldCupCopyLeaders: async ({ deps, query }) =>
    readCopyLeaders(deps.models, { ...query, category: WORLD_CUP_CATEGORY }, deps.clock()),
};
