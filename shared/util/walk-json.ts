import { unstorableKeyReason } from './storable-key.js';

export type JsonPath = (string | number)[];

/** What a visitor asks of the walk: go on (undefined), leave this node's children out, or end it. */
export type WalkStep = 'skip' | 'stop' | undefined;

/** Where a visited value sits: its depth (0 for the root), its key in its parent, and its path. */
export interface JsonPlace {
  depth: number;
  key: string | number | undefined;
  /** Built on demand: most values are passed without anyone asking for their path. */
  path(): JsonPath;
}

interface Frame extends JsonPlace {
  node: unknown;
  parent: Frame | undefined;
}

function pathOf(frame: Frame): JsonPath {
  const path: JsonPath = [];
  for (let f: Frame | undefined = frame; f?.parent; f = f.parent) path.push(f.key!);
  return path.reverse();
}

/**
 * Visits every value of a parsed JSON document, depth first. Walked with an explicit stack, never
 * by recursion: a caller's document nested thousands of levels deep (a 40 kB body can hold 20,000)
 * must be measurable without overflowing the call stack.
 */
export function walkJson(root: unknown, visit: (node: unknown, at: JsonPlace) => WalkStep): void {
  const frame = (node: unknown, key: string | number | undefined, parent: Frame | undefined): Frame => {
    const f: Frame = { node, key, parent, depth: parent ? parent.depth + 1 : 0, path: () => pathOf(f) };
    return f;
  };
  const pending: Frame[] = [frame(root, undefined, undefined)];
  while (pending.length) {
    const current = pending.pop()!;
    const { node } = current;
    const step = visit(node, current);
    if (step === 'stop') return;
    if (step === 'skip' || !node || typeof node !== 'object') continue;
    if (Array.isArray(node)) node.forEach((item, i) => pending.push(frame(item, i, current)));
    else for (const [key, child] of Object.entries(node)) pending.push(frame(child, key, current));
  }
}

/** The first place where a parsed request body breaks a rule every body follows, and which rule. */
export type ShapeProblem =
  { kind: 'too_deep'; path: JsonPath } | { kind: 'unstorable_key'; path: JsonPath; reason: string };

/**
 * In one walk: the first object or array nested more than `maxDepth` levels below the root, or the
 * first object key the database cannot store (storable-key.ts); null when there is neither.
 */
export function firstShapeProblem(root: unknown, maxDepth: number): ShapeProblem | null {
  let found: ShapeProblem | null = null;
  walkJson(root, (node, at) => {
    const reason = typeof at.key === 'string' ? unstorableKeyReason(at.key) : null;
    if (reason) found = { kind: 'unstorable_key', path: at.path(), reason };
    else if (at.depth > maxDepth && node && typeof node === 'object')
      found = { kind: 'too_deep', path: at.path() };
    return found ? 'stop' : undefined;
  });
  return found;
}
