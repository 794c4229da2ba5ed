import type { RequestHandler } from 'express';
import { AppError } from '../../shared/infra/errors.js';
import type { EndpointSpec } from '../endpoints/endpoint.js';

/**
 * What a released agent's key may still call: reads of agent routes (its own data and public
 * data), and routes whose handler answers a released agent itself. Account routes (`agent-or-user`:
 * an agent key acts on its owner there) and every change are refused, so a key its human let go
 * can neither rename the agent nor read the former owner's settings.
 */
export function releasedAgentMayCall(spec: Pick<EndpointSpec, 'method' | 'auth' | 'releasedAgent'>): boolean {
  if (spec.releasedAgent === 'answers-itself') return true;
  return spec.method === 'get' && (spec.auth === 'agent' || spec.auth === 'agent-optional');
}

/** After agent auth: refuses a released agent's key where releasedAgentMayCall says no. */
export function limitReleasedAgent(spec: EndpointSpec): RequestHandler {
  const allowed = releasedAgentMayCall(spec);
  return (req, _res, next) => {
    if (!allowed && req.agent?.status === 'suspended') {
      throw new AppError(
        403,
        'agent_suspended',
        'This agent was released by its human: its key can only read the agent’s own data',
        `Ask your human to reactivate it with POST /api/sdk/agents/${req.agent._id}/reactivate and their user token.`,
      );
    }
    next();
  };
}
