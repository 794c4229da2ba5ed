/**
 * A JSON object answer already serialised, sent as is by routes.ts: for answers built from a shared
 * cache entry, where serialising them again on every request would cost more than the rest of the
 * request. `T` is the shape of the object it holds, checked against the endpoint's response type.
 */
export class JsonText<T extends object> {
  declare readonly shape?: T;

  /** `text` is a JSON object without `warning`; `warning` is its own, if any. */
  constructor(
    readonly text: string,
    readonly warning?: string,
  ) {}

  /** The body, with `extra` (the unknown-parameter warning) first in `warning`, as for other answers. */
  body(extra: string | undefined): string {
    const warning = extra && this.warning ? `${extra} ${this.warning}` : (extra ?? this.warning);
    return warning ? withFields(this.text, { warning }) : this.text;
  }
}

/** A serialised JSON object with more fields at its end. */
export function withFields(objectText: string, fields: Record<string, unknown>): string {
  const more = JSON.stringify(fields).slice(1, -1);
  if (!more) return objectText;
  const head = objectText.slice(0, objectText.lastIndexOf('}')).trimEnd();
  return `${head}${head.endsWith('{') ? '' : ','}${more}}`;
}
