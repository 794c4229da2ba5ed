import { notFound } from '../../infra/errors.js';
import type { Invalidation } from '../../infra/invalidation.js';
import type { AgentModel } from './agent.model.js';
import { nameSkeleton } from './agent-name.js';
import type { AgentSettingsUpdate } from './agent.schemas.js';

export async function updateAgentSettings(
  Agent: AgentModel,
  invalidation: Invalidation,
  agentId: string,
  input: AgentSettingsUpdate,
  now: Date,
) {
  const set: Record<string, unknown> = {};
  if (input.name !== undefined && input.name !== null) {
    const nameKey = nameSkeleton(input.name);
    set.name = input.name;
    set.nameKey = nameKey;
    // A name under another key is taken now (its precedence on the boards starts here); a new
    // spelling of the same name keeps the moment the agent took it.
    await Agent.updateOne({ _id: agentId, nameKey: { $ne: nameKey } }, { $set: { nameTakenAt: now } });
  }
  if (input.auto_redeem_enabled !== undefined && input.auto_redeem_enabled !== null)
    set.autoRedeemEnabled = input.auto_redeem_enabled;
  const agent = await Agent.findOneAndUpdate({ _id: agentId }, { $set: set }, { returnDocument: 'after' });
  if (!agent) throw notFound('Agent', 'Register a new agent with POST /api/sdk/agents/register.');
  await invalidation.publish('agent', agentId);
  return {
    success: true as const,
    agent_id: agent._id,
    name: agent.name,
    auto_redeem_enabled: agent.autoRedeemEnabled,
  };
}
