import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { Deps } from '../../shared/composition/deps.js';
import { API_ACTOR } from '../../shared/domains/operator/record-action.js';
import { AppError } from '../../shared/infra/errors.js';
import type { OperatorLockout } from '../../shared/infra/operator-lockout.js';
import { clientAddress, operatorUnauthorized } from '../http/operator-auth.js';

declare module 'express-serve-static-core' {
  interface Request {
    /**
     * Who uses the console: a signed-in session (with its CSRF token), or a Bearer/Basic caller
     * (`api`), who may read the pages but, holding no session, cannot post a form.
     */
    consoleOperator?: { name: string; csrf: string | null };
  }
}

export const SESSION_COOKIE = 'operator_session';
/** A console session lasts a working shift; signing in again is one paste. */
const SESSION_SECONDS = 12 * 3600;

interface SessionClaims {
  sid: string;
  name: string;
  /** Expiry, epoch seconds. */
  exp: number;
}

const b64 = (buf: Buffer) => buf.toString('base64url');

/**
 * Browser sessions for the operator console. The cookie holds signed claims (never the token); the
 * signing key is derived from the operator token, so rotating the token ends every session, and the
 * session id must still be in Redis, so signing out ends it for good.
 */
export function consoleSessions(deps: Deps, operatorToken: string, lockout: OperatorLockout) {
  const key = createHmac('sha256', operatorToken).update('operator-console-session-v1').digest();
  const mac = (text: string) => createHmac('sha256', key).update(text).digest();
  const redisKey = (sid: string) => `${deps.env.QUEUE_PREFIX}:console-session:${sid}`;
  const cookieOptions = {
    httpOnly: true,
    sameSite: 'strict' as const,
    secure: deps.env.NODE_ENV === 'production',
    path: '/admin',
  };
  const csrfOf = (sid: string) => b64(mac(`csrf:${sid}`));

  async function read(req: Request): Promise<SessionClaims | null> {
    const raw = cookieValue(req.headers.cookie, SESSION_COOKIE);
    const [body, sig] = raw?.split('.') ?? [];
    if (!body || !sig) return null;
    const expected = mac(body);
    const given = Buffer.from(sig, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as SessionClaims;
    if (claims.exp * 1000 < Date.now()) return null;
    return (await deps.redis.exists(redisKey(claims.sid))) ? claims : null;
  }

  return {
    async start(res: Response, name: string): Promise<void> {
      const claims: SessionClaims = {
        sid: b64(randomBytes(18)),
        name,
        exp: Math.floor(Date.now() / 1000) + SESSION_SECONDS,
      };
      await deps.redis.set(redisKey(claims.sid), name, 'EX', SESSION_SECONDS);
      const body = b64(Buffer.from(JSON.stringify(claims)));
      res.cookie(SESSION_COOKIE, `${body}.${b64(mac(body))}`, {
        ...cookieOptions,
        maxAge: SESSION_SECONDS * 1000,
      });
    },

    async end(req: Request, res: Response): Promise<void> {
      const claims = await read(req);
      if (claims) await deps.redis.del(redisKey(claims.sid));
      res.clearCookie(SESSION_COOKIE, cookieOptions);
    },

    /**
     * The console's guard: a session cookie, or the operator token in the Authorization header
     * (scripts, and /admin/queues as before), the latter behind the operator lockout. Without
     * either, a browser navigation is sent to the login page and anything else gets the usual 401.
     * A cookie is not counted by the lockout: it is signed (HMAC), so there is nothing to guess, and
     * a stale one only leads to the sign-in form, which is counted.
     */
    guard(): RequestHandler {
      return async (req, res, next) => {
        const claims = await read(req).catch(() => null);
        if (claims) {
          req.consoleOperator = { name: claims.name, csrf: csrfOf(claims.sid) };
          return next();
        }
        if ((await lockout.checkHeader(clientAddress(req), req.headers.authorization)) === 'right') {
          req.consoleOperator = { name: API_ACTOR, csrf: null };
          return next();
        }
        if (req.method === 'GET' && req.accepts(['json', 'html']) === 'html') {
          res.redirect(303, `/admin/login?next=${encodeURIComponent(req.originalUrl)}`);
          return;
        }
        throw operatorUnauthorized();
      };
    },

    /**
     * Every form post carries its session's CSRF token, whatever credential came with it: a form post
     * is a browser, and a browser sends HTTP Basic (once typed for /metrics or /api/admin) on its own
     * with another site's forms, so Basic and Bearer callers, who hold no session, cannot post forms
     * (scripts write through /api/admin/*). SameSite=Strict keeps other sites' posts from carrying
     * the cookie; this is the second lock.
     */
    csrf(): RequestHandler {
      return (req, _res, next) => {
        const expected = req.consoleOperator?.csrf;
        const given = Buffer.from(String((req.body as Record<string, unknown> | undefined)?.csrf ?? ''));
        const want = Buffer.from(expected ?? '');
        if (!expected || given.length !== want.length || !timingSafeEqual(given, want))
          throw new AppError(
            403,
            'csrf_token_invalid',
            'The form was not sent from a signed-in console session',
            'Sign in at /admin/login, reload the console page and send the form again (scripts use /api/admin/*).',
          );
        next();
      };
    },
  };
}

export type ConsoleSessions = ReturnType<typeof consoleSessions>;

/** One cookie's value from a Cookie header. */
function cookieValue(header: string | undefined, name: string): string | null {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return null;
}
