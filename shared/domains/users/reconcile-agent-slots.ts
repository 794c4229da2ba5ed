import type { RedisClient } from '../../infra/redis.js';
import type { Models } from '../models.js';

/**
 * Repairs `activeAgents` (the tier-slot counter) from the agents themselves. Claim, release and
 * reactivate each write the user and the agent separately; a process killed between the two
 * leaves the counter one off. A counter is only repaired when two runs in a row (10 minutes apart)
 * saw the same mismatch at the same `slotsVersion`, which every slot change bumps: a claim or
 * release in progress between its two writes is never "repaired" into an undercount. The repair
 * itself is guarded by the counter and version it was computed from.
 */
export async function reconcileAgentSlots(models: Models, redis: RedisClient, prefix: string) {
  const users = await models.User.find({}, { activeAgents: 1, slotsVersion: 1 }).lean();
  // Counted after the users were read: an agent write that lands in between changes the version.
  const counted = await models.Agent.aggregate<{ _id: string; n: number }>([
    { $match: { claimedBy: { $ne: null }, status: { $ne: 'suspended' } } },
    { $group: { _id: '$claimedBy', n: { $sum: 1 } } },
  ]);
  const active = new Map(counted.map((c) => [c._id, c.n]));
  const key = `${prefix}:slot-mismatches`;
  const seenBefore = await redis.hgetall(key);
  const seenNow: Record<string, string> = {};
  let fixed = 0;
  for (const user of users) {
    const actual = active.get(user._id) ?? 0;
    if (user.activeAgents === actual) continue;
    const version = user.slotsVersion ?? 0;
    const observation = `${user.activeAgents}:${version}:${actual}`;
    if (seenBefore[user._id] !== observation) {
      seenNow[user._id] = observation;
      continue;
    }
    const res = await models.User.updateOne(
      // `null` also matches a user written before slotsVersion existed.
      { _id: user._id, activeAgents: user.activeAgents, slotsVersion: user.slotsVersion ?? null },
      { $set: { activeAgents: actual }, $inc: { slotsVersion: 1 } },
    );
    fixed += res.modifiedCount;
  }
  const pipeline = redis.multi().del(key);
  if (Object.keys(seenNow).length) pipeline.hset(key, seenNow).expire(key, 3600);
  await pipeline.exec();
  return { users: users.length, mismatched: Object.keys(seenNow).length, fixed };
}
