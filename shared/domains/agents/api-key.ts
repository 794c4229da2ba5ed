import { createHash, randomBytes } from 'node:crypto';

export const API_KEY_PREFIX = 'sk_live_';

/** `sk_live_` + 43 URL-safe characters (256 random bits). Shown once; only its hash is stored. */
export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(32).toString('base64url');
}

/**
 * Keys carry 256 bits of entropy, so a fast hash is enough (no salt or KDF needed: there is nothing
 * to brute-force), and it keeps the lookup a single indexed find.
 */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** What the owner sees to tell keys apart, e.g. `sk_live_AbC12x...`. */
export function keyPrefixOf(key: string): string {
  return `${key.slice(0, API_KEY_PREFIX.length + 6)}...`;
}

export function looksLikeApiKey(value: string): boolean {
  return /^sk_live_[A-Za-z0-9_-]{32,}$/.test(value);
}
