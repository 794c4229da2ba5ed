import type { RequestHandler } from 'express';
import { authenticateAgent } from '../../shared/domains/agents/authenticate-agent.js';
import type { AgentRecord } from '../../shared/domains/agents/agent.model.js';
import { AppError } from '../../shared/infra/errors.js';
import { bearerToken } from '../../shared/infra/authorization-header.js';
import type { Deps } from '../../shared/composition/deps.js';

declare module 'express-serve-static-core' {
  interface Request {
    agent?: AgentRecord;
  }
}

export const UNAUTHORIZED_MESSAGE = 'Missing or invalid Authorization header';

export function unauthorized(
  fix = 'Send `Authorization: Bearer sk_live_...` with the API key returned by POST /api/sdk/agents/register.',
) {
  return new AppError(401, 'unauthorized', UNAUTHORIZED_MESSAGE, fix, {
    headers: { 'WWW-Authenticate': 'Bearer' },
  });
}

export { bearerToken };

/**
 * Resolves `Authorization: Bearer sk_live_…` to the agent, or answers the contract's 401. From the
 * process's agent cache; `fresh` for endpoints that show the agent's balance or counters.
 */
export function requireAgent(deps: Deps, opts: { fresh?: boolean } = {}): RequestHandler {
  return async (req, _res, next) => {
    const key = bearerToken(req.headers.authorization);
    const agent = key ? await authenticateAgent(deps, key, opts) : null;
    if (!agent) throw unauthorized();
    req.agent = agent;
    next();
  };
}

/** An agent key is optional here; one that is sent must be valid (a wrong key is a 401, not anonymity). */
export const optionalAgent =
  (agentAuth: RequestHandler): RequestHandler =>
  (req, res, next) =>
    req.headers.authorization ? agentAuth(req, res, next) : next();
