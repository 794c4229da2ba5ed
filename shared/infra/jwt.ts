import { createPublicKey } from 'node:crypto';
import jwt, { type Algorithm } from 'jsonwebtoken';
import type { Env } from './config/env.js';
import { resolveGeneratedSecret } from './operator-token.js';

export interface UserClaims {
  sub: string;
  email?: string;
}

/** Clocks of the issuer and the service may differ this much. */
const CLOCK_SKEW_SECONDS = 60;

/** A well-signed token the service still refuses, with what the caller should do instead. */
export class UserTokenRefused extends Error {
  constructor(readonly fix: string) {
    super(fix);
    this.name = 'UserTokenRefused';
  }
}

/** 2592000 → "30 days", 3600 → "1 hour", 5400 → "90 minutes". */
function describeSeconds(seconds: number): string {
  const units: [number, string][] = [
    [86400, 'day'],
    [3600, 'hour'],
    [60, 'minute'],
  ];
  for (const [size, name] of units) {
    const count = seconds / size;
    if (Number.isInteger(count) || count >= 1000) {
      const whole = Math.round(count);
      return `${whole} ${name}${whole === 1 ? '' : 's'}`;
    }
  }
  return `${seconds} seconds`;
}

export interface JwtVerifier {
  algorithms: Algorithm[];
  verify(token: string): UserClaims;
}

/**
 * Verifies user tokens issued outside the service (spec §5.8 leaves issuance open). The algorithm is
 * pinned by the key: a secret allows only HS256, an RSA key only RS256, an EC key only ES256, so
 * neither `alg: none` nor an HS/RS confusion can pass. Expiry is required and its distance capped
 * (JWT_MAX_LIFETIME); issuer and audience are checked when configured.
 */
export function createJwtVerifier(env: Env): JwtVerifier {
  let key: string | Buffer;
  let algorithms: Algorithm[];
  if (env.JWT_PUBLIC_KEY) {
    const pub = createPublicKey(env.JWT_PUBLIC_KEY);
    algorithms = pub.asymmetricKeyType === 'ec' ? ['ES256'] : ['RS256'];
    key = env.JWT_PUBLIC_KEY;
  } else {
    key = jwtSecret(env);
    algorithms = ['HS256'];
  }
  return {
    algorithms,
    verify(token) {
      const claims = jwt.verify(token, key, {
        algorithms,
        ...(env.JWT_ISSUER ? { issuer: env.JWT_ISSUER } : {}),
        ...(env.JWT_AUDIENCE ? { audience: env.JWT_AUDIENCE } : {}),
      });
      if (
        typeof claims !== 'object' ||
        typeof claims.sub !== 'string' ||
        !claims.sub ||
        claims.exp === undefined
      ) {
        throw new Error('token needs a subject and an expiry');
      }
      // A token valid for years is a standing credential: cap how far ahead its expiry may be.
      // A future `iat` does not shorten the count: the token is usable from now.
      const nowSeconds = Math.floor(Date.now() / 1000);
      const issuedAt = typeof claims.iat === 'number' ? Math.min(claims.iat, nowSeconds) : nowSeconds;
      if (claims.exp - issuedAt > env.JWT_MAX_LIFETIME + CLOCK_SKEW_SECONDS) {
        throw new UserTokenRefused(
          `Use a token that expires at most ${describeSeconds(env.JWT_MAX_LIFETIME)} after it is issued (JWT_MAX_LIFETIME); this one lives ${describeSeconds(claims.exp - issuedAt)}.`,
        );
      }
      return { sub: claims.sub, email: typeof claims.email === 'string' ? claims.email : undefined };
    },
  };
}

/** The HS256 secret: JWT_SECRET, else the development secret generated into DATA_DIR. */
export function jwtSecret(env: Env): string {
  return resolveGeneratedSecret(env.DATA_DIR, 'jwt-secret', env.JWT_SECRET).token;
}
