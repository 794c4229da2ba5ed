import { z } from 'zod';

/** Deeper than this, a caller's free-form object is refused (MongoDB itself stops at 100 levels). */
export const FREE_FORM_MAX_DEPTH = 20;

/** Why MongoDB would refuse (or misread) this key when the object is stored, or null when it is fine. */
function badKey(key: string): string | null {
  if (key.includes('\u0000')) return 'keys cannot contain the NUL character';
  if (key.startsWith('$')) return 'keys cannot start with "$" (reserved for database operators)';
  if (key.startsWith('.')) return 'keys cannot start with "."';
  return null;
}

/**
 * An object of the caller's own shape (e.g. a trade's `signal_data`), stored as sent. Its keys, at
 * every level, must be storable: a NUL would fail the database write (a 500 after the trade was
 * accepted) and a `$` key reads as an operator. Walked without recursion, so nesting cannot
 * overflow the stack before the depth limit answers.
 */
export const freeFormObject = () =>
  z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
    const pending: { node: unknown; path: (string | number)[] }[] = [{ node: value, path: [] }];
    while (pending.length) {
      const { node, path } = pending.pop()!;
      if (!node || typeof node !== 'object') continue;
      if (path.length > FREE_FORM_MAX_DEPTH) {
        ctx.addIssue({
          code: 'custom',
          path,
          message: `nested deeper than ${FREE_FORM_MAX_DEPTH} levels`,
          input: '[too deep]',
        });
        return;
      }
      if (Array.isArray(node)) {
        node.forEach((item, i) => pending.push({ node: item, path: [...path, i] }));
        continue;
      }
      for (const [key, item] of Object.entries(node)) {
        const problem = badKey(key);
        if (problem) ctx.addIssue({ code: 'custom', path: [...path, key], message: problem, input: key });
        else pending.push({ node: item, path: [...path, key] });
      }
    }
  });
