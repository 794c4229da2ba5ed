/**
 * The operator console's template layer: `html` tagged templates escape every interpolated value
 * unless it is already SafeHtml (the result of another `html` template), so markup is only ever
 * written in templates and data can never become markup.
 */
export class SafeHtml {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export type Interpolation =
  SafeHtml | string | number | boolean | null | undefined | readonly Interpolation[];

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** `false`, null and undefined render nothing, so `cond && html\`…\`` reads naturally. */
function render(value: Interpolation): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  return new SafeHtml(
    strings.reduce((out, s, i) => out + s + (i < values.length ? render(values[i]) : ''), ''),
  );
}

/** A timestamp as `2026-11-25 03:04:05 UTC` in a <time> element, or a dash. */
export function when(at: string | Date | null | undefined): SafeHtml {
  if (!at) return html`<span class="muted">—</span>`;
  const iso = typeof at === 'string' ? at : at.toISOString();
  return html`<time datetime="${iso}">${iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC')}</time>`;
}
