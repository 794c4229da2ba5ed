export type JsonPath = (string | number)[];

/** What a visitor asks of the walk: go on (undefined), leave this node's children out, or end it. */
export type WalkStep = 'skip' | 'stop' | undefined;

/**
 * Visits every value of a parsed JSON document, depth first, with its path from the root. Walked
 * with an explicit stack, never by recursion: a caller's document nested thousands of levels deep
 * (a 40 kB body can hold 20,000) must be measurable without overflowing the call stack.
 */
export function walkJson(root: unknown, visit: (node: unknown, path: JsonPath) => WalkStep): void {
  const pending: { node: unknown; path: JsonPath }[] = [{ node: root, path: [] }];
  while (pending.length) {
    const { node, path } = pending.pop()!;
    const step = visit(node, path);
    if (step === 'stop') return;
    if (step === 'skip' || !node || typeof node !== 'object') continue;
    const children: [string | number, unknown][] = Array.isArray(node)
      ? node.map((item, i) => [i, item])
      : Object.entries(node);
    for (const [key, child] of children) pending.push({ node: child, path: [...path, key] });
  }
}

/** The path of the first object or array nested more than `limit` levels below the root, or null. */
export function pathDeeperThan(root: unknown, limit: number): JsonPath | null {
  let found: JsonPath | null = null;
  walkJson(root, (node, path) => {
    if (path.length <= limit || !node || typeof node !== 'object') return undefined;
    found = path;
    return 'stop';
  });
  return found;
}
