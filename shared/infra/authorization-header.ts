import { createHash, timingSafeEqual } from 'node:crypto';

/** The token of `Authorization: Bearer <token>`, or null. */
export function bearerToken(header: string | undefined): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1] ?? null;
}

/** The password of `Authorization: Basic <base64 user:password>`, or null. */
function basicPassword(header: string | undefined): string | null {
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!basic?.[1]) return null;
  const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon >= 0 ? decoded.slice(colon + 1) : null;
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * The operator token a header presents: scripts and Prometheus send `Bearer <token>`, browsers HTTP
 * Basic with the token as password (any user name). Null when the header presents none.
 */
export const presentedOperatorToken = (header: string | undefined): string | null =>
  bearerToken(header) ?? basicPassword(header);

/** Is `presented` the operator token? Compared in constant time. */
export const isOperatorToken = (presented: string, token: string): boolean =>
  timingSafeEqual(digest(presented), digest(token));
