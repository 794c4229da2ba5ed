/**
 * The subset of MongoDB update operators the money path writes ($set, $inc, $addToSet), applied to
 * a plain copy of a document in memory. The sim engine (venues/sim/sim-plan.ts) decides a chain of
 * events on one head without a round trip per event: it applies each event's own update document
 * (the one the single-event path sends to the database) here, so the two paths cannot disagree.
 */
export interface UpdateDoc {
  $set?: Record<string, unknown>;
  $inc?: Record<string, number>;
  $addToSet?: Record<string, unknown>;
}

const clone = <T>(doc: T): T => structuredClone(doc);

/** The parent object of a dotted path (created on the way, as MongoDB does) and the last key. */
function parentOf(doc: Record<string, unknown>, path: string): [Record<string, unknown>, string] {
  const keys = path.split('.');
  let node = doc;
  for (const k of keys.slice(0, -1)) {
    if (node[k] === null || typeof node[k] !== 'object') node[k] = {};
    node = node[k] as Record<string, unknown>;
  }
  return [node, keys[keys.length - 1]!];
}

/** `doc` after `update`, as a new object (the input is not touched). */
export function applyUpdate<T extends object>(doc: T, update: UpdateDoc): T {
  const next = clone(doc) as Record<string, unknown>;
  for (const [path, value] of Object.entries(update.$set ?? {})) {
    const [parent, key] = parentOf(next, path);
    parent[key] = value;
  }
  for (const [path, by] of Object.entries(update.$inc ?? {})) {
    const [parent, key] = parentOf(next, path);
    parent[key] = ((parent[key] as number | undefined) ?? 0) + by;
  }
  for (const [path, value] of Object.entries(update.$addToSet ?? {})) {
    const [parent, key] = parentOf(next, path);
    const list = (parent[key] as unknown[] | undefined) ?? [];
    parent[key] = list.some((v) => JSON.stringify(v) === JSON.stringify(value)) ? list : [...list, value];
  }
  return next as T;
}

const same = (a: unknown, b: unknown) =>
  a instanceof Date && b instanceof Date
    ? a.getTime() === b.getTime()
    : JSON.stringify(a) === JSON.stringify(b);

/** The top-level fields of `after` that differ from `before`: a `$set` that turns one into the other. */
export function changedFields<T extends object>(before: T, after: T): Record<string, unknown> {
  const set: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(after)) {
    if (!same((before as Record<string, unknown>)[k], v)) set[k] = v;
  }
  return set;
}
