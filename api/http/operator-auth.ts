import type { Request, RequestHandler } from 'express';
import { AppError } from '../../shared/infra/errors.js';
import type { OperatorLockout } from '../../shared/infra/operator-lockout.js';

declare module 'express-serve-static-core' {
  interface Request {
    /** The request carries the operator token (routes with auth `operator` or `operator-optional`). */
    operator?: boolean;
  }
}

/** The client address the operator lockout counts against (behind the configured `trust proxy`). */
export const clientAddress = (req: Request) => req.ip ?? 'unknown';

export const operatorUnauthorized = () =>
  new AppError(
    401,
    'unauthorized',
    'Operator authentication required',
    'Send `Authorization: Bearer <OPERATOR_TOKEN>`, or sign in with the token as the password.',
    { headers: { 'WWW-Authenticate': 'Basic realm="operator", charset="UTF-8"' } },
  );

/**
 * Operator routes: scripts send `Authorization: Bearer <token>`, browsers HTTP Basic with the token
 * as password (any user name). Agent keys and user tokens never pass here. Behind the per-address
 * lockout: a locked-out address gets 429 even with the right token.
 */
export function requireOperator(lockout: OperatorLockout): RequestHandler {
  return async (req, _res, next) => {
    if ((await lockout.checkHeader(clientAddress(req), req.headers.authorization)) !== 'right')
      throw operatorUnauthorized();
    req.operator = true;
    next();
  };
}

/**
 * Public routes that tell operators more (e.g. readiness details): without an Authorization header
 * the request goes on as anyone's; with one, it must be the operator token.
 */
export function optionalOperator(lockout: OperatorLockout): RequestHandler {
  const operatorAuth = requireOperator(lockout);
  return (req, res, next) => (req.headers.authorization ? operatorAuth(req, res, next) : next());
}
