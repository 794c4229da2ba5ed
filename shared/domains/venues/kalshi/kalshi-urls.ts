import { KALSHI_TICKER } from '../external-ids.js';
import type { MarketUrlMatch } from '../venue-adapter.js';

/**
 * kalshi.com URLs and bare tickers, as agents paste them to import (kalshi.md §1.6). Pure string
 * work, never fetched: the tickers it yields go to the Kalshi API through the venue client, whose
 * base URL is fixed, and are restricted to `[A-Z0-9.-]`, so nothing can be smuggled into a path.
 *
 * Forms (the site is lower case, the API upper case; both are upper-cased here):
 *   KXHIGHNY-26FEB19-B43.5 / kxhighny-26feb19         a bare market or event ticker
 *   KXHIGHNY                                          a bare series ticker
 *   /markets/{series}/{title-slug}                    a series page
 *   /markets/{series}/{title-slug}/{event}            an event page
 *   /markets/{series}/{title-slug}#{event}            the older hash form
 *   /markets/{series}/{event} or /markets/{EVENT-or-MARKET}/…
 * The title slug is human text no API resolves: only ticker-shaped segments count. A ticker can be
 * a market's or an event's; which one is only known by asking Kalshi (the import worker does).
 */

export type KalshiTarget =
  { kind: 'ticker'; ticker: string; series: string } | { kind: 'series'; series: string };
export type KalshiInputParse = KalshiTarget | { kind: 'error'; reason: string };

export const KALSHI_ORIGIN = 'https://kalshi.com';
const HOSTS = new Set(['kalshi.com', 'www.kalshi.com']);
const MAX_INPUT_LENGTH = 2048;
const MAX_TICKER_LENGTH = 100;
const SERIES = /^[A-Z0-9]+$/;
const EXAMPLE = `a ticker such as KXHIGHNY-26FEB19-B43.5, or a page URL such as ${KALSHI_ORIGIN}/markets/kxhighny/highest-temperature-in-nyc/kxhighny-26feb19`;

const refuse = (reason: string): KalshiInputParse => ({ kind: 'error', reason });

/** A ticker-shaped token, upper-cased, or null (`..` never passes: it could read as a path step). */
export function kalshiTickerOrNull(raw: string): string | null {
  const t = raw.trim().toUpperCase();
  if (t.length === 0 || t.length > MAX_TICKER_LENGTH || t.includes('..')) return null;
  return KALSHI_TICKER.test(t) ? t : null;
}

const seriesOf = (ticker: string) => ticker.split('-')[0]!;

/** What a kalshi.com URL or a bare ticker points at, or why it is refused (a whole sentence for a `fix`). */
export function parseKalshiInput(raw: string): KalshiInputParse {
  const text = raw.trim();
  if (text === '') return refuse(`The value is empty; send ${EXAMPLE}.`);
  if (text.length > MAX_INPUT_LENGTH)
    return refuse(`The value is longer than ${MAX_INPUT_LENGTH} characters.`);
  if (!/^https?:\/\//i.test(text)) {
    const ticker = kalshiTickerOrNull(text);
    if (ticker) return { kind: 'ticker', ticker, series: seriesOf(ticker) };
    const series = text.toUpperCase();
    if (SERIES.test(series) && series.length <= MAX_TICKER_LENGTH) return { kind: 'series', series };
    return refuse(`"${text.slice(0, 80)}" is neither a Kalshi ticker nor a kalshi.com URL; send ${EXAMPLE}.`);
  }
  if (/[\s\\]/.test(text)) return refuse('The URL contains whitespace or a backslash.');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return refuse(`This is not a valid URL; send ${EXAMPLE}.`);
  }
  if (url.username !== '' || url.password !== '' || url.port !== '')
    return refuse('The URL carries credentials or a port; paste the plain page URL.');
  if (!HOSTS.has(url.hostname))
    return refuse(`Only kalshi.com URLs are accepted (got host ${url.hostname}); send ${EXAMPLE}.`);
  const segments = url.pathname.split('/').filter((s) => s !== '');
  if (segments[0]?.toLowerCase() !== 'markets' || segments.length < 2)
    return refuse(`The URL is not a Kalshi market page (…/markets/…); send ${EXAMPLE}.`);
  const first = segments[1]!.toUpperCase();
  const series = seriesOf(first);
  if (!SERIES.test(series)) return refuse(`"${segments[1]!.slice(0, 80)}" is not a Kalshi series or ticker.`);
  // Ticker candidates: the fragment first, then the last ticker-shaped segment of the series.
  const fragment = url.hash.replace(/^#/, '');
  const candidates = [fragment, ...segments.slice(1).reverse()]
    .map(kalshiTickerOrNull)
    .filter((t): t is string => t !== null && t.startsWith(`${series}-`));
  const ticker = candidates[0];
  return ticker ? { kind: 'ticker', ticker, series } : { kind: 'series', series };
}

/**
 * The imported markets a kalshi.com URL may name: the ticker kalshi.md §1.6 finds (fragment, else
 * the last segment of the series) and the last path segment, which ends most market URLs; each as a
 * market ticker or as an event ticker (every imported market of that event). Null for other hosts.
 */
export function kalshiMarketUrlMatch(raw: string, normalized: string): MarketUrlMatch | null {
  if (!normalized.startsWith(`${KALSHI_ORIGIN}/`)) return null;
  const parsed = parseKalshiInput(raw);
  const tickers = [normalized.split('/').at(-1)!.toUpperCase()];
  if (parsed.kind === 'ticker') tickers.push(parsed.ticker);
  const unique = [...new Set(tickers)];
  return { venue: 'kalshi', urls: [normalized], externalIds: unique, eventRefs: unique };
}

/** The page of an event on kalshi.com (`/markets/{series}/{event}`, the form the site accepts). */
export function kalshiEventUrl(eventTicker: string): string {
  const event = eventTicker.toLowerCase();
  return `${KALSHI_ORIGIN}/markets/${seriesOf(event)}/${event}`;
}

/**
 * The link of one market: its event page with the market ticker as fragment. The site shows the
 * event; importing this URL imports just the market (the fragment is the preferred ticker).
 */
export function kalshiMarketUrl(eventTicker: string, ticker: string): string {
  return `${kalshiEventUrl(eventTicker)}#${ticker.toLowerCase()}`;
}
