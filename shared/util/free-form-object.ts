import { z } from 'zod';
import { walkJson } from './walk-json.js';

/** Deeper than this, a caller's free-form value is refused (MongoDB itself stops at 100 levels). */
export const FREE_FORM_MAX_DEPTH = 20;

/**
 * A value of the caller's own shape must be safe to serialise and store: at most
 * FREE_FORM_MAX_DEPTH levels (JSON.stringify and the database driver recurse). Its keys were
 * checked with every body's (NUL, a leading `$` or `.`: 422 `body_key_invalid`, api/http/json-body.ts).
 */
function refineFreeForm(value: unknown, ctx: z.RefinementCtx): void {
  walkJson(value, (node, at) => {
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
