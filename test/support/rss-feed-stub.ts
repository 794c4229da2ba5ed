import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One article of a feed. */
export interface FeedItem {
  title: string;
  link: string;
  description?: string;
  /** RFC 822, as RSS 2.0 has it (default: now). */
  pubDate?: string;
}

/** A running feed: its URL, the number of times it was fetched, and `close`. */
export interface RssFeedStub {
  url: string;
  fetches: () => number;
  close: () => Promise<void>;
}

/**
 * This loopback address, not 127.0.0.1: skills that fetch feeds refuse `localhost` and `127.0.0.1`
 * by name (an SSRF guard, e.g. polymarket-signal-sniper's validate_url), while the whole of 127/8
 * is loopback, so the test still reaches nothing outside the machine.
 */
export const FEED_HOST = '127.0.0.2';

const escapeXml = (s: string) =>
  s.replace(
    /[<>&"']/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!,
  );

/** The RSS 2.0 document of `items` (channel/item with title, link, description, pubDate). */
export function rssDocument(title: string, items: readonly FeedItem[]): string {
  const entries = items
    .map(
      (i) =>
        `    <item>\n      <title>${escapeXml(i.title)}</title>\n      <link>${escapeXml(i.link)}</link>\n` +
        `      <description>${escapeXml(i.description ?? '')}</description>\n` +
        `      <pubDate>${escapeXml(i.pubDate ?? new Date().toUTCString())}</pubDate>\n    </item>`,
    )
    .join('\n');
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0">\n  <channel>\n` +
    `    <title>${escapeXml(title)}</title>\n${entries}\n  </channel>\n</rss>\n`
  );
}

/**
 * An RSS feed served on a free port of FEED_HOST at `<url>` (any path answers the same document),
 * in place of the news feeds a skill is configured with.
 */
export async function startRssFeedStub(
  items: readonly FeedItem[],
  title = 'Test feed',
): Promise<RssFeedStub> {
  const body = rssDocument(title, items);
  let fetches = 0;
  const server: Server = createServer((_req, res) => {
    fetches++;
    res.writeHead(200, { 'content-type': 'application/rss+xml; charset=utf-8' });
    res.end(body);
  });
  await new Promise<void>((ready, fail) => {
    server.once('error', fail);
    server.listen(0, FEED_HOST, () => ready());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${FEED_HOST}:${port}/feed.xml`,
    fetches: () => fetches,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}
