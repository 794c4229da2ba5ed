import type { Models } from '../models.js';
import type { TierCache } from './tier-cache.js';
import type { AgentRecord } from '../agents/agent.model.js';
import type { Tier, UserRecord } from './user.model.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type SettingsOwnerDeps = { models: Models; caches: TierCache };

/**
 * Whose safeguards apply: a claimed agent trades under its owner's settings and tier; an unclaimed
 * agent has settings of its own and the free tier (spec §3: claiming links it to the account).
 */
export interface SettingsOwner {
  /** The trading_settings document id and the key of the owner's daily counters. */
  key: string;
  kind: 'user' | 'agent';
  id: string;
  tier: Tier;
}

export const userOwner = (user: UserRecord): SettingsOwner => ({
  key: `user:${user._id}`,
  kind: 'user',
  id: user._id,
  tier: user.tier,
});

/** The settings owner's key of `agent`: its user's once claimed, its own before. */
export const ownerKeyOf = (agent: Pick<AgentRecord, '_id' | 'claimedBy'>) =>
  agent.claimedBy ? `user:${agent.claimedBy}` : `agent:${agent._id}`;

/** The owner of `agent` (as claimed in the record given), with the user's tier from the process's cache. */
export async function agentOwner(
  deps: Pick<SettingsOwnerDeps, 'models' | 'caches'>,
  agent: Pick<AgentRecord, '_id' | 'claimedBy'>,
): Promise<SettingsOwner> {
  const userId = agent.claimedBy;
  if (!userId) return { key: ownerKeyOf(agent), kind: 'agent', id: agent._id, tier: 'free' };
  const tier = await deps.caches.tiers.getOrLoad(
    userId,
    async () => (await deps.models.User.findById(userId, { tier: 1 }).lean())?.tier ?? 'free',
  );
  return { key: ownerKeyOf(agent), kind: 'user', id: userId, tier };
}
