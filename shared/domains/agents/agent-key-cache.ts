import type { LocalCache } from '../../infra/local-cache.js';
import type { AgentRecord } from './agent.model.js';

/**
 * The process's cache of agents by API key hash (frozen lean records), so that authenticating a
 * request costs no database round trip. Balances and counters in them are not current.
 */
export interface AgentKeyCache {
  agentsByKeyHash: LocalCache<AgentRecord>;
}
