import { getReactorConfig, patchReactorConfig } from '../../shared/domains/reactor/reactor-config.js';
import { recentEvents } from '../../shared/domains/reactor/pending-signals.js';
import { deleteFromFeed, listFeed } from '../../shared/domains/shock-ladder/reactor-feed.js';
import {
  getShockLadderConfig,
  patchShockLadderConfig,
} from '../../shared/domains/shock-ladder/shock-ladder-config.js';
import { listReactions, recordReaction } from '../../shared/domains/reactor/reactions.js';
import type { HandlersFor } from '../endpoints/endpoint.js';
import type { reactorEndpoints } from '../endpoints/reactor.endpoints.js';

export const reactorHandlers: HandlersFor<typeof reactorEndpoints> = {
  getReactorConfig: ({ deps, agent }) => getReactorConfig(deps, agent._id),
  patchReactorConfig: ({ deps, agent, body }) => patchReactorConfig(deps, agent._id, body),
  reactorPending: ({ deps, agent, query }) => listFeed(deps, agent._id, query.caps),
  deleteReactorPending: ({ deps, agent, params }) => deleteFromFeed(deps, agent._id, params.signal_id),
  listReactorReactions: ({ deps, agent, query }) => listReactions(deps, agent._id, query.limit),
  postReactorReaction: ({ deps, agent, body }) => recordReaction(deps, agent._id, body),
  getShockLadderConfig: ({ deps, agent }) => getShockLadderConfig(deps, agent._id),
  patchShockLadderConfig: ({ deps, agent, body }) => patchShockLadderConfig(deps, agent._id, body),
  reactorEvents: ({ deps, agent, query }) => recentEvents(deps, agent._id, query.limit, query.caps),
};
