import type { AgentDoc, AgentModel } from './agent.model.js';
import { hashApiKey, looksLikeApiKey } from './api-key.js';

/** The agent a bearer key belongs to, or null. Suspended and broke agents still authenticate (they may read). */
export async function authenticateAgent(Agent: AgentModel, key: string): Promise<AgentDoc | null> {
  if (!looksLikeApiKey(key)) return null;
  return Agent.findOne({ apiKeyHash: hashApiKey(key) });
}
