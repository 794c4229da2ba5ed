/**
 * Building request URLs for a venue client. Callers pass a path under the configured base URL and
 * never a URL, so a venue client can only ever reach its own host: a path built from user input
 * (a market slug, a ticker) must not be able to point the service at another host or climb out
 * of the base path (SSRF).
 */

export type QueryValue = string | number | boolean | (string | number)[] | undefined;
export type Query = Record<string, QueryValue>;

/** A parsed base URL: origin plus an optional path prefix such as `/gamma`, without trailing slash. */
export interface VenueBase {
  origin: string;
  prefix: string;
  host: string;
}

export function parseBaseUrl(baseUrl: string): VenueBase {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new Error(`Venue base URL is not a URL: ${baseUrl}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`Venue base URL must be http(s): ${baseUrl}`);
  }
  if (url.search || url.hash || url.username || url.password) {
    throw new Error(`Venue base URL must not carry a query, fragment or credentials: ${url.origin}`);
  }
  return { origin: url.origin, prefix: url.pathname.replace(/\/+$/, ''), host: url.host };
}

/**
 * Why a path is refused, or null when it is safe. Refused: anything with a scheme or `//`
 * (another host), `..` in any spelling (the URL parser resolves `%2e%2e` too), backslashes (some
 * parsers read them as `/`), whitespace/control characters, and `?`/`#` (the query goes in `query`,
 * so it is always encoded).
 */
export function unsafePathReason(path: string): string | null {
  if (!path.startsWith('/')) return 'must start with /';
  if (path.startsWith('//')) return 'must not start with //';
  if (path.includes('://')) return 'must not contain ://';
  if (/\.\.|%2e/i.test(path)) return 'must not contain .. or %2e';
  if (path.includes('\\')) return 'must not contain a backslash';
  if (/\s/.test(path) || [...path].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) {
    return 'must not contain whitespace or control characters';
  }
  if (path.includes('?') || path.includes('#')) return 'must not contain ? or # (pass the query as `query`)';
  return null;
}

/**
 * base + path + query. Concatenation rather than `new URL(path, base)`, which would drop the base's
 * path prefix for a path starting with `/`. Arrays become repeated keys (`a=1&a=2`), the form the
 * venues' list filters expect; undefined values are left out.
 */
export function buildVenueUrl(base: VenueBase, path: string, query?: Query): URL {
  const reason = unsafePathReason(path);
  if (reason) throw new Error(`Refused venue path ${JSON.stringify(path)}: ${reason}`);
  const url = new URL(base.origin + base.prefix + path);
  // Belt and braces: whatever the parser made of the path, it must still be under our base.
  if (url.origin !== base.origin || !url.pathname.startsWith(base.prefix + '/')) {
    throw new Error(`Refused venue path ${JSON.stringify(path)}: leaves the base URL`);
  }
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) url.searchParams.append(key, String(item));
    else url.searchParams.append(key, String(value));
  }
  return url;
}
