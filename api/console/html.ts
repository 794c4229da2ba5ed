import { html, type Html } from '../html/template.js';

export { escapeHtml, html, type Html, type HtmlValue } from '../html/template.js';

/** A timestamp as `2026-11-25 03:04:05 UTC` in a <time> element, or a dash. */
export function when(at: string | Date | null | undefined): Html {
  if (!at) return html`<span class="muted">—</span>`;
  const iso = typeof at === 'string' ? at : at.toISOString();
  return html`<time datetime="${iso}">${iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC')}</time>`;
}
