import type { VenuePrint, VenuePrintsQuery } from './venue-adapter.js';

/**
 * The answer of `publicPrints` from what a venue's newest-first pages returned (in the order they
 * came): the prints strictly after `afterSec`, each once, oldest first, at most `limit`.
 *
 * Each once: a page read while new prints arrive shifts by as many rows, so a print can come twice
 * at a page seam; the first sighting is kept.
 *
 * A cut never splits a second. The caller's next watermark is the last print's second and the
 * next call asks strictly after it, so prints of that second left out now would never come back.
 * The cut is moved back to the previous second instead; only when one second alone holds more than
 * `limit` prints is that second answered whole (a larger answer rather than a hole in the tape).
 */
export function oldestPrintsAfter(newestFirst: Iterable<VenuePrint>, q: VenuePrintsQuery): VenuePrint[] {
  const seen = new Set<string>();
  const after: VenuePrint[] = [];
  for (const p of newestFirst) {
    if (p.timestamp <= q.afterSec || seen.has(p.id)) continue;
    seen.add(p.id);
    after.push(p);
  }
  // Oldest first; within one second the venue's own order, reversed (a stable sort keeps it).
  const oldestFirst = after.reverse().sort((a, b) => a.timestamp - b.timestamp);
  const limit = Math.max(0, Math.floor(q.limit));
  if (limit === 0) return [];
  if (oldestFirst.length <= limit) return oldestFirst;
  const firstLeftOut = oldestFirst[limit]!.timestamp;
  let end = limit;
  while (end > 0 && oldestFirst[end - 1]!.timestamp === firstLeftOut) end--;
  if (end > 0) return oldestFirst.slice(0, end);
  let whole = limit;
  while (whole < oldestFirst.length && oldestFirst[whole]!.timestamp === firstLeftOut) whole++;
  return oldestFirst.slice(0, whole);
}
