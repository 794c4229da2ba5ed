/**
 * `items` in consecutive slices of at most `size`: the way to keep one database command bounded
 * (a `$in` of 100,000 ids is a 4.6 MB command, and the development database matches each
 * candidate against the whole list, so its cost grows with the square of the list).
 */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  return Array.from({ length: Math.ceil(items.length / size) }, (_, i) =>
    items.slice(i * size, (i + 1) * size),
  );
}
