import type { RequestHandler } from 'express';
import { looksLikeApiKey } from '../../shared/domains/agents/api-key.js';
import { authenticateUser } from '../../shared/domains/users/authenticate-user.js';
import type { UserRecord } from '../../shared/domains/users/user.model.js';
import type { Deps } from '../../shared/composition/deps.js';
import { UserTokenRefused, type JwtVerifier } from '../../shared/infra/jwt.js';
import { bearerToken, unauthorized } from './agent-auth.js';

declare module 'express-serve-static-core' {
  interface Request {
    user?: UserRecord;
  }
}

function refusedWithFix(err: unknown): never {
  throw err instanceof UserTokenRefused ? unauthorized(err.fix) : err;
}

/** User routes take the human's JWT; an agent key is refused here, as a JWT is on agent routes. */
export function requireUser(deps: Deps, verifier: JwtVerifier): RequestHandler {
  return async (req, _res, next) => {
    const token = bearerToken(req.headers.authorization);
    if (token && looksLikeApiKey(token)) {
      throw unauthorized(
        'This route takes your user token (a JWT from your identity provider), not an agent API key.',
      );
    }
    const user = token ? await authenticateUser(deps.models, verifier, token).catch(refusedWithFix) : null;
    if (!user)
      throw unauthorized(
        'Send `Authorization: Bearer <user JWT>`: a valid, unexpired token signed for this service.',
      );
    req.user = user;
    next();
  };
}

/** Routes an agent and its human both use: an API key authenticates the agent, anything else a user. */
export const requireAgentOrUser =
  (agentAuth: RequestHandler, userAuth: RequestHandler): RequestHandler =>
  (req, res, next) =>
    looksLikeApiKey(bearerToken(req.headers.authorization) ?? '')
      ? agentAuth(req, res, next)
      : userAuth(req, res, next);
