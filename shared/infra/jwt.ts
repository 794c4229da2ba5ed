import { createPublicKey } from 'node:crypto';
import jwt, { type Algorithm } from 'jsonwebtoken';
import type { Env } from './config/env.js';
import { resolveGeneratedSecret } from './operator-token.js';

export interface UserClaims {
  sub: string;
  email?: string;
}

export interface JwtVerifier {
  algorithms: Algorithm[];
  verify(token: string): UserClaims;
}

/**
 * Verifies user tokens issued outside the service (spec §5.8 leaves issuance open). The algorithm is
 * pinned by the key: a secret allows only HS256, an RSA key only RS256, an EC key only ES256, so
 * neither `alg: none` nor an HS/RS confusion can pass. Expiry is enforced; issuer and audience when
 * configured.
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
      return { sub: claims.sub, email: typeof claims.email === 'string' ? claims.email : undefined };
    },
  };
}

/** The HS256 secret: JWT_SECRET, else the development secret generated into DATA_DIR. */
export function jwtSecret(env: Env): string {
  return resolveGeneratedSecret(env.DATA_DIR, 'jwt-secret', env.JWT_SECRET).token;
}
