import { z } from 'zod';

/**
 * Why the database would refuse or misread this object key when a caller's value is stored as sent,
 * or null when it is fine. NUL ends a BSON key, so the driver fails the write (a 500 after the
 * request was accepted); a leading `$` reads as an operator. Dots inside a key are stored as sent
 * (`model.v2` in a trade's `signal_data`); one in front has no field name before it.
 */
export function unstorableKeyReason(key: string): string | null {
  if (key.includes('\u0000')) return 'keys cannot contain the NUL character';
  if (key.startsWith('$')) return 'keys cannot start with "$" (reserved for database operators)';
  if (key.startsWith('.')) return 'keys cannot start with "."';
  return null;
}

/**
 * A string the service stores as an object key (e.g. a tunable's env name, a key of a skill's
 * config): the rule every key of a request body follows (api/http/json-body.ts).
 */
export const storableKey = () =>
  z.string().superRefine((key, ctx) => {
    const reason = unstorableKeyReason(key);
    if (reason) ctx.addIssue({ code: 'custom', message: reason, input: key });
  });
