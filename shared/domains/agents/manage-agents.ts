import { AppError, notFound } from '../../infra/errors.js';
import type { Invalidation } from '../../infra/invalidation.js';
import type { AgentRecord } from './agent.model.js';
import type { AgentSettingsUpdate } from './agent.schemas.js';
import { assertClaimCodeLive } from './claim-code.js';
import { updateAgentSettings } from './update-agent-settings.js';
import type { Models } from '../models.js';
import { fromMicro } from '../money.js';
import { isServiceId } from '../venues/external-ids.js';
import type { Tier, UserRecord } from '../users/user.model.js';

export type TierLimits = Record<Tier, number>;

const tierLimitReached = (user: UserRecord, limit: number) =>
  new AppError(
    409,
    'tier_limit_reached',
    `Agent limit reached: the ${user.tier} tier allows ${limit} active agents`,
    'Release an agent you no longer use, or upgrade your tier.',
    {
      body: { tier: user.tier, limit, active_agents: user.activeAgents },
    },
  );

/** Takes one of the user's agent slots, atomically against the tier limit. */
async function takeSlot(models: Models, user: UserRecord, limits: TierLimits): Promise<void> {
  const limit = limits[user.tier];
  const taken = await models.User.updateOne(
    { _id: user._id, activeAgents: { $lt: limit } },
    { $inc: { activeAgents: 1, slotsVersion: 1 } },
  );
  if (taken.modifiedCount === 0)
    throw tierLimitReached((await models.User.findById(user._id).lean()) ?? user, limit);
}

const giveBackSlot = (models: Models, userId: string) =>
  models.User.updateOne(
    { _id: userId, activeAgents: { $gt: 0 } },
    { $inc: { activeAgents: -1, slotsVersion: 1 } },
  );

/** The user's own agent, or 404 (another user's agent is indistinguishable from a missing one). */
export async function ownedAgent(
  models: Models,
  user: Pick<UserRecord, '_id'>,
  agentId: string,
): Promise<AgentRecord> {
  const agent = isServiceId(agentId)
    ? await models.Agent.findOne({ _id: agentId, claimedBy: user._id }).lean()
    : null;
  if (!agent)
    throw notFound('Agent', 'Use the agent_id of one of your agents (GET /api/sdk/agents lists them).');
  return agent;
}

export function userAgentView(a: AgentRecord) {
  return {
    agent_id: a._id,
    name: a.name,
    description: a.description ?? null,
    status: a.status,
    balance: fromMicro(a.balanceMicro),
    // The owner sees the whole P&L, the part the public boards leave out (linked agents) included.
    total_pnl: fromMicro(a.leaderboardPnlMicro + (a.linkedPnlMicro ?? 0)),
    realized_pnl: fromMicro(a.realizedPnlMicro),
    trades_count: a.tradesCount,
    win_count: a.winCount,
    loss_count: a.lossCount,
    key_prefix: a.keyPrefix,
    real_trading_enabled: a.status !== 'suspended',
    claimed_at: a.claimedAt ? a.claimedAt.toISOString() : null,
    created_at: (a as { createdAt?: Date }).createdAt?.toISOString() ?? null,
    last_trade_at: a.lastTradeAt ? a.lastTradeAt.toISOString() : null,
  };
}

/** `POST /api/sdk/agents/claim`: links the agent to the user and enables real trading; the code works once. */
export async function claimAgent(
  models: Models,
  invalidation: Invalidation,
  user: UserRecord,
  claimCode: string,
  limits: TierLimits,
  now: Date,
  claimCodeTtlHours: number,
) {
  const agent = await models.Agent.findOne(
    { claimCode },
    { _id: 1, claimedBy: 1, claimCodeIssuedAt: 1, createdAt: 1 },
  ).lean();
  if (!agent)
    throw notFound(
      'Claim code',
      'Check the code: it is the claim_code the agent received at registration (e.g. reef-X4B2Q7-M9KD3T-7HWQ2P).',
    );
  const alreadyClaimed = () =>
    new AppError(
      409,
      'already_claimed',
      'This claim code has already been used',
      'An agent can be claimed once; if it is yours, find it in GET /api/sdk/agents.',
    );
  if (agent.claimedBy) throw alreadyClaimed();
  assertClaimCodeLive(agent, claimCodeTtlHours, now);
  await takeSlot(models, user, limits);
  // The code is part of the guard: one rotated away since it was read claims nothing.
  const claimed = await models.Agent.updateOne(
    { _id: agent._id, claimedBy: null, claimCode },
    { $set: { claimedBy: user._id, claimedAt: now } },
  );
  if (claimed.modifiedCount === 0) {
    await giveBackSlot(models, user._id);
    throw alreadyClaimed();
  }
  await models.Agent.updateOne({ _id: agent._id, status: 'unclaimed' }, { $set: { status: 'claimed' } });
  // Its owner, settings and tier change with the claim: every process must see it at once.
  await invalidation.publish('agent', agent._id);
  const fresh = (await models.Agent.findById(agent._id).lean())!;
  return { success: true as const, ...userAgentView(fresh), claimed: true as const, claimed_by: user._id };
}

export async function listUserAgents(models: Models, user: UserRecord, limits: TierLimits) {
  const agents = await models.Agent.find({ claimedBy: user._id }).sort({ claimedAt: -1 }).lean();
  return {
    agents: agents.map(userAgentView),
    total: agents.length,
    tier: user.tier,
    agent_limit: limits[user.tier],
    active_agents: agents.filter((a) => a.status !== 'suspended').length,
  };
}

/** Agent settings changed by the owner: ownership first (another user's agent is a 404). */
export async function updateOwnedAgentSettings(
  models: Models,
  invalidation: Invalidation,
  user: UserRecord,
  agentId: string,
  input: AgentSettingsUpdate,
  now: Date,
) {
  await ownedAgent(models, user, agentId);
  return updateAgentSettings(models.Agent, invalidation, agentId, input, now);
}

/** `release`: suspends the agent (trading refused, history kept) and frees its slot. Idempotent. */
export async function releaseAgent(
  models: Models,
  invalidation: Invalidation,
  user: UserRecord,
  agentId: string,
) {
  await ownedAgent(models, user, agentId);
  const released = await models.Agent.updateOne(
    { _id: agentId, claimedBy: user._id, status: { $ne: 'suspended' } },
    { $set: { status: 'suspended' } },
  );
  // Also when already suspended: a retry heals a message lost after the write.
  await invalidation.publish('agent', agentId);
  if (released.modifiedCount > 0) await giveBackSlot(models, user._id);
  return { success: true as const, ...userAgentView((await models.Agent.findById(agentId).lean())!) };
}

/** `reactivate`: takes a slot (409 tier_limit_reached at the limit) and lets the agent trade again. Idempotent. */
export async function reactivateAgent(
  models: Models,
  invalidation: Invalidation,
  user: UserRecord,
  agentId: string,
  limits: TierLimits,
) {
  const agent = await ownedAgent(models, user, agentId);
  if (agent.status !== 'suspended') return { success: true as const, ...userAgentView(agent) };
  await takeSlot(models, user, limits);
  const status = agent.balanceMicro === 0 && agent.reservedMicro === 0 ? 'broke' : 'claimed';
  const reactivated = await models.Agent.updateOne(
    { _id: agentId, claimedBy: user._id, status: 'suspended' },
    { $set: { status } },
  );
  if (reactivated.modifiedCount === 0) await giveBackSlot(models, user._id); // reactivated concurrently
  await invalidation.publish('agent', agentId);
  return { success: true as const, ...userAgentView((await models.Agent.findById(agentId).lean())!) };
}
