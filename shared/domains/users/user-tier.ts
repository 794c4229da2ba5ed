import type { Invalidation } from '../../infra/invalidation.js';
import type { Models } from '../models.js';
import type { Tier } from './user.model.js';

/** Sets a user's tier (an operator action), creating the user record if it has none yet. */
export async function setUserTier(models: Models, invalidation: Invalidation, userId: string, tier: Tier) {
  const user = await models.User.findOneAndUpdate(
    { _id: userId },
    { $set: { tier }, $setOnInsert: { email: null, activeAgents: 0 } },
    { upsert: true, returnDocument: 'after' },
  ).lean();
  await invalidation.publish('user', userId);
  return { user_id: userId, tier: user!.tier, active_agents: user!.activeAgents };
}
