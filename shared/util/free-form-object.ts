import { z } from 'zod';
import { walkJson } from './walk-json.js';

/** Deeper than this, a caller's free-form value is refused (MongoDB itself stops at 100 levels). */
export const FREE_FORM_MAX_DEPTH = 20;

/** Why MongoDB would refuse (or misread) this key when the object is stored, or null when it is fine. */
function badKey(key: string): string | null {
  if (key.includes('\u0000')) return 'keys cannot contain the NUL character';
  if (key.startsWith('$')) return 'keys cannot start with "$" (reserved for database operators)';
  if (key.startsWith('.')) return 'keys cannot start with "."';
  return null;
}

/**
 * A value of the caller's own shape must be storable and safe to serialise: at most
 * FREE_FORM_MAX_DEPTH levels (JSON.stringify and the database driver recurse), and keys without NUL
 * (a failed database write, a 500 after the trade was accepted) or a leading `$` (read as an operator).
 */
function refineFreeForm(value: unknown, ctx: z.RefinementCtx): void {
  walkJson(value, (node, at) => {
    const problem = typeof at.key === 'string' ? badKey(at.key) : null;
    if (problem) {
      ctx.addIssue({ code: 'custom', path: at.path(), message: problem, input: at.key });
      return 'skip';
    }
    if (node && typeof node === 'object' && at.depth > FREE_FORM_MAX_DEPTH) {
      ctx.addIssue({
        code: 'custom',
        path: at.path(),
        message: `nested deeper than ${FREE_FORM_MAX_DEPTH} levels`,
        input: '[too deep]',
      });
      return 'stop';
    }
    return undefined;
  });
}

/** An object of the caller's own shape (e.g. a trade's `signal_data`), stored or relayed as sent. */
export const freeFormObject = () => z.record(z.string(), z.unknown()).superRefine(refineFreeForm);

/** A list of values of the caller's own shape (e.g. JSON-RPC `params`), relayed as sent. */
export const freeFormArray = () => z.array(z.unknown()).superRefine(refineFreeForm);
