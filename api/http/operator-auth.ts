import type { RequestHandler } from 'express';
import { AppError } from '../../shared/infra/errors.js';
import { isOperatorCredential } from '../../shared/infra/authorization-header.js';

declare module 'express-serve-static-core' {
  interface Request {
    /** The request carries the operator token (routes with auth `operator` or `operator-optional`). */
    operator?: boolean;
  }
}

/**
 * Operator routes: scripts send `Authorization: Bearer <token>`, browsers HTTP Basic with the token
 * as password (any user name). Agent keys and user tokens never pass here.
 */
export function requireOperator(token: string): RequestHandler {
  return (req, _res, next) => {
    if (!isOperatorCredential(req.headers.authorization, token)) {
      throw new AppError(
        401,
        'unauthorized',
        'Operator authentication required',
        'Send `Authorization: Bearer <OPERATOR_TOKEN>`, or sign in with the token as the password.',
        {
          headers: { 'WWW-Authenticate': 'Basic realm="operator", charset="UTF-8"' },
        },
      );
    }
    req.operator = true;
    next();
  };
}

/**
 * Public routes that tell operators more (e.g. readiness details): without an Authorization header
 * the request goes on as anyone's; with one, it must be the operator token.
 */
export function optionalOperator(token: string): RequestHandler {
  const operatorAuth = requireOperator(token);
  return (req, res, next) => (req.headers.authorization ? operatorAuth(req, res, next) : next());
}
