import { html, type HtmlValue, type Html } from './html.js';

/** The console's pages, in navigation order. */
export const CONSOLE_PAGES = [
  { path: '/admin', label: 'Home', about: 'Start here.' },
  {
    path: '/admin/queues',
    label: 'Queues',
    about: 'BullMQ queues and jobs (bull-board): retry, clean, inspect.',
  },
  {
    path: '/admin/schedules',
    label: 'Schedules',
    about: 'Every scheduled tick: last run, next run, pause, resume, run now.',
  },
  {
    path: '/admin/venues',
    label: 'Venues',
    about: 'Each venue’s base URLs and health: circuit, last success, last error.',
  },
  {
    path: '/admin/audit',
    label: 'Audit',
    about: 'The ledger audit: balances, positions and books recomputed from the record.',
  },
  {
    path: '/admin/tapes',
    label: 'Tapes',
    about: 'The backtest tape store: coverage by source, sizes, the recorder’s last run.',
  },
  { path: '/admin/markets', label: 'Markets', about: 'Resolve a sim market and settle its positions.' },
  { path: '/admin/skills', label: 'Skills', about: 'Approve or reject submitted skills.' },
  { path: '/admin/users', label: 'Users', about: 'Set a user’s tier.' },
] as const;

export interface PageOptions {
  title: string;
  /** Nav entry to mark as current. */
  current?: string;
  operator?: { name: string; csrf: string | null };
  body: HtmlValue;
}

/** The page shell: skip link, navigation, who is signed in (with a sign-out button), main. */
export function page(opts: PageOptions): string {
  const nav = opts.operator
    ? html`<nav aria-label="Console">
          ${CONSOLE_PAGES.map(
            (p) =>
              html`<a href="${p.path}" ${p.path === opts.current ? html`aria-current="page"` : ''}
                >${p.label}</a
              > `,
          )}
        </nav>
        <div class="who">
          <span>Signed in as <strong>${opts.operator.name}</strong></span>
          ${
            // The operator token in a header reads the pages; forms need a session (api/console/session.ts).
            opts.operator.csrf
              ? html`<form class="inline" method="post" action="/admin/logout">
                  ${csrfField(opts.operator.csrf)}<button type="submit">Sign out</button>
                </form>`
              : html`<a href="/admin/login">Sign in to use the forms</a>`
          }
        </div>`
    : '';
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <title>${opts.title} · Operator console</title>
        <link rel="stylesheet" href="/admin/console.css" />
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header class="top"><a class="brand" href="/admin">Operator console</a>${nav}</header>
        <main id="main">${opts.body}</main>
      </body>
    </html>`.text;
}

export const csrfField = (token: string | null | undefined): Html =>
  html`${token ? html`<input type="hidden" name="csrf" value="${token}" />` : ''}`;

export function notice(kind: 'success' | 'error', text: HtmlValue): Html {
  return html`<p class="notice ${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${text}</p>`;
}
