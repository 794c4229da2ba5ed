import type { AgentRecord } from '../agents/agent.model.js';
import type { Models } from '../models.js';
import type { Tier, UserRecord } from '../users/user.model.js';

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

export async function agentOwner(models: Models, agent: AgentRecord): Promise<SettingsOwner> {
  if (!agent.claimedBy) return { key: `agent:${agent._id}`, kind: 'agent', id: agent._id, tier: 'free' };
  const user = await models.User.findById(agent.claimedBy, { tier: 1 }).lean();
  return { key: `user:${agent.claimedBy}`, kind: 'user', id: agent.claimedBy, tier: user?.tier ?? 'free' };
}
