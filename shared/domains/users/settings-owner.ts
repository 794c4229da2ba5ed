import type { Models } from '../models.js';
import type { TierCache } from './tier-cache.js';
import { actingUserOf, type AgentRecord } from '../agents/agent.model.js';
import type { Tier, UserRecord } from './user.model.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type SettingsOwnerDeps = { models: Models; caches: TierCache };

/**
 * Whose safeguards apply: a claimed agent trades under its owner's settings and tier; an unclaimed
 * agent, or one its human released, has settings of its own and the free tier (spec §3: claiming
 * links it to the account; agents/agent.model.ts actingUserOf decides which account an agent acts for).
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

/** What of an agent decides its settings owner. */
export type OwnedAgent = Pick<AgentRecord, '_id' | 'claimedBy' | 'status'>;

/** The settings owner's key of `agent`: its user's while it acts for them, its own otherwise. */
export const ownerKeyOf = (agent: OwnedAgent) => {
  const userId = actingUserOf(agent);
  return userId ? `user:${userId}` : `agent:${agent._id}`;
};

/** The owner of `agent` (as claimed in the record given), with the user's tier from the process's cache. */
export async function agentOwner(
  deps: Pick<SettingsOwnerDeps, 'models' | 'caches'>,
  agent: OwnedAgent,
): Promise<SettingsOwner> {
  const userId = actingUserOf(agent);
  if (!userId) return { key: ownerKeyOf(agent), kind: 'agent', id: agent._id, tier: 'free' };
  const tier = await deps.caches.tiers.getOrLoad(
    userId,
    async () => (await deps.models.User.findById(userId, { tier: 1 }).lean())?.tier ?? 'free',
  );
  return { key: ownerKeyOf(agent), kind: 'user', id: userId, tier };
}
