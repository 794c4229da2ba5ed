import type { Models } from '../models.js';
import type { AgentKeyCache } from './agent-key-cache.js';
import type { AgentRecord } from './agent.model.js';
import { hashApiKey, looksLikeApiKey } from './api-key.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type AuthenticateAgentDeps = { models: Models; caches: AgentKeyCache };

/**
 * The agent a bearer key belongs to, or null. Suspended and broke agents still authenticate (they may
 * read). Served from this process's cache (status, claim and settings changes drop it on every process
 * at once, see LocalCaches); `fresh` reads the database, for answers that show the agent's balance and
 * counters: those are ledger projections that change with every trade and are never invalidated here.
 */
export async function authenticateAgent(
  deps: Pick<AuthenticateAgentDeps, 'models' | 'caches'>,
  key: string,
  opts: { fresh?: boolean } = {},
): Promise<AgentRecord | null> {
  if (!looksLikeApiKey(key)) return null;
  const hash = hashApiKey(key);
  return deps.caches.agentsByKeyHash.getOrLoad(
    hash,
    async () => {
      const agent = await deps.models.Agent.findOne({ apiKeyHash: hash }).lean();
      // Shared by concurrent requests: nobody may change it.
      return agent ? Object.freeze(agent) : null;
    },
    opts,
  );
}
