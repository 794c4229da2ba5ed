import { ASSETS } from './assets.js';
import { html, type Html } from '../html/template.js';

export type Section = 'markets' | 'leaderboard' | null;

export interface PageOptions {
  title: string;
  /** The navigation entry marked as the current page. */
  section: Section;
  body: Html;
  /** Pages with the chart load uPlot and the chart script (deferred: the page reads without them). */
  chart?: boolean;
}

const navLink = (href: string, label: string, current: boolean) =>
  html`<a href="${href}" ${current ? html` aria-current="page"` : ''}>${label}</a>`;

/** The document every dashboard page shares: landmarks, a skip link, navigation, no inline script. */
export function layout(opts: PageOptions): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${opts.title} · Agent trading</title>
        <link rel="icon" href="data:," />
        <link rel="stylesheet" href="${ASSETS.css()}" />
        ${
          opts.chart
            ? html`<link rel="stylesheet" href="${ASSETS.uplotCss()}" />
                <script src="${ASSETS.uplotScript()}" defer></script>
                <script src="${ASSETS.chartScript()}" defer></script>`
            : ''
        }
      </head>
      <body>
        <a class="skip" href="#content">Skip to content</a>
        <header class="site">
          <a class="brand" href="/">Agent trading</a>
          <nav aria-label="Main">
            ${navLink('/', 'Markets', opts.section === 'markets')}
            ${navLink('/leaderboard', 'Leaderboard', opts.section === 'leaderboard')}
            <a href="/docs">API</a>
          </nav>
        </header>
        <main id="content">${opts.body}</main>
        <footer class="site">
          <p>
            Read-only view of the public API (<a href="/openapi.json">OpenAPI</a>). Prices are the YES price;
            sim trades use $SIM.
          </p>
        </footer>
      </body>
    </html> `.text;
}
