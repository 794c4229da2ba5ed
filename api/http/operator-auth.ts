import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { AppError } from '../../shared/infra/errors.js';
import { bearerToken } from './agent-auth.js';

const digest = (s: string) => createHash('sha256').update(s).digest();
const sameSecret = (a: string, b: string) => timingSafeEqual(digest(a), digest(b));

function presentedToken(header: string | undefined): string | null {
  const bearer = bearerToken(header);
  if (bearer) return bearer;
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!basic?.[1]) return null;
  const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon >= 0 ? decoded.slice(colon + 1) : null;
}

/**
 * Operator routes: scripts send `Authorization: Bearer <token>`, browsers HTTP Basic with the token
 * as password (any user name). Agent keys and user tokens never pass here.
 */
export function requireOperator(token: string): RequestHandler {
  return (req, _res, next) => {
    const presented = presentedToken(req.headers.authorization);
    if (!presented || !sameSecret(presented, token)) {
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
    next();
  };
}
