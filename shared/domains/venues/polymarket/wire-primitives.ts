import { z } from 'zod';

/**
 * The awkward value encodings Polymarket's APIs mix freely (reference §2.2, §3): numbers that are
 * sometimes JSON numbers and sometimes decimal strings, arrays that are sometimes real arrays and
 * sometimes JSON-encoded strings. Each helper accepts every encoding seen and nothing else, so a
 * field that changes type for real still fails validation instead of becoming NaN or a wrong price.
 */

const DECIMAL = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;

/** A finite number given as a JSON number or a decimal string (`"0.585"`, `92509.47`). */
export const numeric = z.union([
  z.number().finite(),
  z
    .string()
    .trim()
    .regex(DECIMAL, 'a decimal number')
    .transform((s) => Number(s))
    .pipe(z.number().finite()),
]);

/**
 * A number that is only informational (volume, liquidity, a Gamma price snapshot): also accepts
 * absent, null and `""` (seen on freshly created markets) as null. Never use it for a field a
 * trade is priced from.
 */
export const infoNumeric = z
  .union([numeric, z.literal('')])
  .nullish()
  .transform((v) => (typeof v === 'number' ? v : null));

/**
 * An identifier given as a string or a number (Gamma ids are numeric strings; some proxies turn
 * them into numbers). Always a string afterwards.
 */
export const idString = z.union([
  z.string(),
  z
    .number()
    .int()
    .transform((n) => String(n)),
]);

/**
 * An array that may arrive JSON-encoded in a string (`"[\"Yes\", \"No\"]"`) or as a real array;
 * both are accepted, and the elements are validated either way.
 */
export function jsonArray<T extends z.ZodType>(item: T) {
  return z.union([
    z.array(item),
    z
      .string()
      .transform((s, ctx): unknown => {
        try {
          return JSON.parse(s);
        } catch {
          ctx.addIssue({ code: 'custom', message: 'not a JSON-encoded array' });
          return z.NEVER;
        }
      })
      .pipe(z.array(item)),
  ]);
}

/** A date string (ISO, or Gamma's `2024-11-06 05:30:07+00`): a Date, or null when empty or unreadable. */
export const looseDate = z
  .string()
  .nullish()
  .transform((s) => {
    if (!s) return null;
    const ms = Date.parse(s);
    return Number.isNaN(ms) ? null : new Date(ms);
  });
