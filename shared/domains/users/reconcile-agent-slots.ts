import type { Models } from '../models.js';

/** A user changed this recently may have a claim or release between its two writes: left alone. */
const QUIET_MS = 60_000;

/**
 * Repairs `activeAgents` (the tier-slot counter) from the agents themselves. Claim, release and
 * reactivate each write the user and the agent separately; a process killed between the two
 * leaves the counter one off. The fix is guarded by the counter value and `updatedAt` it was
 * computed from, so a claim racing with it wins and the repair waits for the next run.
 */
export async function reconcileAgentSlots(models: Models, now: Date) {
  const counted = await models.Agent.aggregate<{ _id: string; n: number }>([
    { $match: { claimedBy: { $ne: null }, status: { $ne: 'suspended' } } },
    { $group: { _id: '$claimedBy', n: { $sum: 1 } } },
  ]);
  const active = new Map(counted.map((c) => [c._id, c.n]));
  const users = await models.User.find(
    { updatedAt: { $lt: new Date(now.getTime() - QUIET_MS) } },
    { activeAgents: 1, updatedAt: 1 },
  ).lean();
  let fixed = 0;
  for (const user of users) {
    const actual = active.get(user._id) ?? 0;
    if (user.activeAgents === actual) continue;
    const res = await models.User.updateOne(
      { _id: user._id, activeAgents: user.activeAgents, updatedAt: user.updatedAt },
      { $set: { activeAgents: actual } },
    );
    fixed += res.modifiedCount;
  }
  return { users: users.length, fixed };
}
