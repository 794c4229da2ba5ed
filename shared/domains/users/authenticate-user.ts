import { UserTokenRefused, type JwtVerifier } from '../../infra/jwt.js';
import type { Models } from '../models.js';
import type { UserRecord } from './user.model.js';

/**
 * The user a valid token names, created on first use; null for an invalid token, UserTokenRefused
 * for a valid one the service does not take (e.g. too long-lived).
 */
export async function authenticateUser(
  models: Models,
  verifier: JwtVerifier,
  token: string,
): Promise<UserRecord | null> {
  let claims;
  try {
    claims = verifier.verify(token);
  } catch (err) {
    if (err instanceof UserTokenRefused) throw err; // its fix says more than "invalid token"
    return null;
  }
  try {
    return await models.User.findOneAndUpdate(
      { _id: claims.sub },
      { $setOnInsert: { email: claims.email ?? null, tier: 'free', activeAgents: 0 } },
      { upsert: true, returnDocument: 'after' },
    ).lean();
  } catch (err) {
    // Two first requests of a new user raced on the upsert: the other one created it.
    if ((err as { code?: number }).code !== 11000) throw err;
    return models.User.findById(claims.sub).lean();
  }
}
