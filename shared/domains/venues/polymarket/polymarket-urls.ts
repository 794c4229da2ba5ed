import type { MarketUrlMatch } from '../venue-adapter.js';

/**
 * polymarket.com page URLs, pasted by agents to import a market. Parsing is pure string work and
 * never fetches anything: the slugs it yields go to the Gamma API through the venue client, whose
 * base URL is fixed, so a crafted URL can neither reach another host (SSRF) nor smuggle path
 * segments into the API call (slugs are restricted to `[a-z0-9-]`).
 *
 * Shapes (reference §1, as the official SDK splits them):
 *   /event/{eventSlug}                → an event (or a single-market event's market of the same slug)
 *   /event/{eventSlug}/{marketSlug}   → one market of an event
 *   /market/{marketSlug}              → one market
 * optionally behind a locale segment (`/es/event/…`, `/pt-BR/market/…`). Query and fragment are
 * ignored (`?tid=…` is common in shared links); trailing slashes too.
 */

export type PolymarketUrlTarget =
  { kind: 'event'; eventSlug: string } | { kind: 'market'; eventSlug: string | null; marketSlug: string };

export type PolymarketUrlParse = PolymarketUrlTarget | { kind: 'error'; reason: string };

export const POLYMARKET_ORIGIN = 'https://polymarket.com';
const HOSTS = new Set(['polymarket.com', 'www.polymarket.com']);
/** Real slugs run to ~100 characters; the cap keeps junk out of logs and upstream queries. */
export const MAX_SLUG_LENGTH = 200;
/** Longer input is not a URL anyone pasted from a browser bar. */
const MAX_URL_LENGTH = 2048;
const SLUG = /^[a-z0-9-]+$/;
// `es`, `zh`, `pt-BR`, `zh-Hant`-style locale segments the site serves translated pages under.
const LOCALE = /^[a-z]{2}(?:-[a-z]{2,4})?$/i;

const EXAMPLE = `${POLYMARKET_ORIGIN}/event/<event-slug> or ${POLYMARKET_ORIGIN}/market/<market-slug>`;

const refuse = (reason: string): PolymarketUrlParse => ({ kind: 'error', reason });

/**
 * What a polymarket.com URL points at, or why it is refused. Reasons are whole sentences meant for
 * a 4xx `fix`: they say what was wrong and what a valid URL looks like.
 */
export function parsePolymarketUrl(raw: string): PolymarketUrlParse {
  const text = raw.trim();
  if (text === '') return refuse(`The URL is empty; paste a Polymarket page URL such as ${EXAMPLE}.`);
  if (text.length > MAX_URL_LENGTH) return refuse(`The URL is longer than ${MAX_URL_LENGTH} characters.`);
  // Checked on the raw text, before the WHATWG parser normalises anything away: a backslash reads
  // as `/` there, which is how `https://polymarket.com\@evil.test` tricks differ between parsers.
  if (/[\s\\]/.test(text)) return refuse('The URL contains whitespace or a backslash.');
  const scheme = /^https?:\/\/([^/?#]*)/i.exec(text);
  if (!scheme) return refuse(`Only http(s) polymarket.com URLs are accepted, such as ${EXAMPLE}.`);
  // The parser drops a default port (`:443`) without trace, so ports are judged on the raw text.
  const authority = scheme[1]!;
  if (authority.includes('@')) {
    return refuse('The URL carries a user name or password (`user@host`); paste the plain page URL.');
  }
  if (authority.includes(':'))
    return refuse('The URL names a port; polymarket.com pages are served without one.');

  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return refuse(`This is not a valid URL; expected ${EXAMPLE}.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return refuse(`Only http(s) polymarket.com URLs are accepted, such as ${EXAMPLE}.`);
  }
  if (url.username !== '' || url.password !== '' || url.port !== '') {
    return refuse('The URL carries credentials or a port; paste the plain page URL.');
  }
  // Exact host match (the parser lower-cases it): `polymarket.com.evil.test` and look-alikes fail.
  if (!HOSTS.has(url.hostname)) {
    return refuse(`Only polymarket.com URLs are accepted (got host ${url.hostname}); expected ${EXAMPLE}.`);
  }

  const segments = url.pathname.split('/').filter((s) => s !== '');
  if (segments.length > 0 && LOCALE.test(segments[0]!) && segments[1] !== undefined) {
    const next = segments[1].toLowerCase();
    if (next === 'event' || next === 'market') segments.shift();
  }
  const [section, first, second, ...rest] = segments;
  const kind = section?.toLowerCase();
  if (kind !== 'event' && kind !== 'market') {
    return refuse(`The URL is not a Polymarket event or market page; expected ${EXAMPLE}.`);
  }
  if (first === undefined) return refuse(`The URL has no ${kind} slug after /${kind}/; expected ${EXAMPLE}.`);
  if (rest.length > 0 || (kind === 'market' && second !== undefined)) {
    return refuse(`The URL has more path segments than a Polymarket page; expected ${EXAMPLE}.`);
  }

  const firstSlug = slugOf(first);
  if (typeof firstSlug !== 'string') return firstSlug;
  if (kind === 'market') return { kind: 'market', eventSlug: null, marketSlug: firstSlug };
  if (second === undefined) return { kind: 'event', eventSlug: firstSlug };
  const secondSlug = slugOf(second);
  if (typeof secondSlug !== 'string') return secondSlug;
  return { kind: 'market', eventSlug: firstSlug, marketSlug: secondSlug };
}

/** A path segment as a slug (lower-cased), or the refusal. Percent-escapes are refused, not decoded. */
function slugOf(segment: string): string | PolymarketUrlParse {
  const slug = segment.toLowerCase();
  if (slug.length > MAX_SLUG_LENGTH) return refuse(`The slug is longer than ${MAX_SLUG_LENGTH} characters.`);
  if (!SLUG.test(slug)) {
    return refuse(`"${slug.slice(0, 80)}" is not a Polymarket slug (letters, digits and dashes only).`);
  }
  return slug;
}

/**
 * The imported markets a polymarket.com URL may name: for an event page, the event's markets; for a
 * market page, the market under any of the URLs it may have been stored with. Null for other URLs.
 */
export function polymarketMarketUrlMatch(raw: string, normalized: string): MarketUrlMatch | null {
  const target = parsePolymarketUrl(raw);
  if (target.kind === 'event')
    return { venue: 'polymarket', urls: [normalized], externalIds: [], eventRefs: [target.eventSlug] };
  if (target.kind === 'market')
    return {
      venue: 'polymarket',
      urls: [
        normalized,
        polymarketMarketUrl(target.eventSlug, target.marketSlug),
        polymarketMarketUrl(null, target.marketSlug),
      ],
      externalIds: [],
      eventRefs: [],
    };
  return null;
}

/** The canonical page of an event. */
export function polymarketEventUrl(eventSlug: string): string {
  return `${POLYMARKET_ORIGIN}/event/${eventSlug}`;
}

/**
 * The canonical page of a market: under its event when known (`/event/{e}/{m}`, or just
 * `/event/{e}` for a single-market event sharing its slug), else `/market/{m}`.
 */
export function polymarketMarketUrl(eventSlug: string | null, marketSlug: string): string {
  if (eventSlug === null) return `${POLYMARKET_ORIGIN}/market/${marketSlug}`;
  if (eventSlug === marketSlug) return polymarketEventUrl(eventSlug);
  return `${POLYMARKET_ORIGIN}/event/${eventSlug}/${marketSlug}`;
}
