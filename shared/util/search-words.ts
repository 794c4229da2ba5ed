/**
 * A keyword search `q` as the official client documents it: split on whitespace, each word matched
 * (case-insensitively, as a substring) against the question or the tags, the words ANDed — "trump
 * china" finds "Will Trump visit China?". The words are regex-escaped where a database matches them.
 */

/** Words one `q` may hold: each is one more clause every candidate is checked against. */
export const MAX_QUERY_WORDS = 12;

export const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The distinct lower-cased words of `q` (none for an empty or blank one). */
export function queryWords(q: string | undefined): string[] {
  return [...new Set((q ?? '').toLowerCase().split(/\s+/).filter(Boolean))];
}

/**
 * A database filter: every word in `fields` (any of them), each as an escaped case-insensitive
 * regex. Array fields (tags) match when one element holds the word.
 */
export function wordsFilter(words: string[], fields: string[]): Record<string, unknown> {
  return {
    $and: words.map((w) => {
      const re = { $regex: escapeRegex(w), $options: 'i' };
      return { $or: fields.map((f) => ({ [f]: re })) };
    }),
  };
}

/** The same match in memory: every word in one of `texts`. */
export function matchesWords(texts: readonly (string | null | undefined)[], words: string[]): boolean {
  const lower = texts.filter((t): t is string => !!t).map((t) => t.toLowerCase());
  return words.every((w) => lower.some((t) => t.includes(w)));
}

/** For a query schema's refine: `q` holds no more words than a search takes. */
export const fewWords = (q: string) => queryWords(q).length <= MAX_QUERY_WORDS;
export const WORDS_MESSAGE = `q holds at most ${MAX_QUERY_WORDS} words`;
