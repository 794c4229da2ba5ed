import { z } from 'zod';

/**
 * Agent names are shown to other people (leaderboards, claim pages), so they are stored in one
 * normal form (NFKC: "ﬁ" and "fi", full-width and ASCII letters are one spelling) and may not carry
 * characters that hide or reorder text: controls (Cc: NUL, escapes), format characters (Cf: bidi
 * overrides and isolates U+202A–U+202E, U+2066–U+2069, marks U+200E/U+200F/U+061C, zero-width
 * U+200B–U+200D, U+FEFF, …), and lone surrogates (Cs: not text at all, broken by every encoder).
 */
const HIDDEN_CHARACTER = /[\p{Cc}\p{Cf}\p{Cs}]/u;

const codePoint = (ch: string) => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

export const agentNameSchema = z
  .string()
  .transform((name) => name.normalize('NFKC').trim())
  .pipe(
    z
      .string()
      .min(1, 'name must not be empty')
      .max(100)
      .superRefine((name, ctx) => {
        const hidden = HIDDEN_CHARACTER.exec(name);
        if (hidden)
          ctx.addIssue({
            code: 'custom',
            message: `name contains the invisible or control character ${codePoint(hidden[0])}; use visible characters only`,
            input: name,
          });
      }),
  );

/**
 * Letters of other scripts that look like Latin ones (after NFKC and lower-casing), and Latin
 * letters and digits that look like each other: the part of Unicode's confusables (UTS #39) that
 * impersonating a name in Latin letters needs.
 */
const LOOKALIKES: Record<string, string> = {
  // Cyrillic
  а: 'a',
  в: 'b',
  е: 'e',
  ё: 'e',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  ь: 'b',
  і: 'l',
  ї: 'l',
  ј: 'j',
  ѕ: 's',
  һ: 'h',
  ԁ: 'd',
  ԛ: 'q',
  ԝ: 'w',
  ӏ: 'l',
  // Greek
  α: 'a',
  β: 'b',
  γ: 'y',
  ε: 'e',
  η: 'n',
  ι: 'l',
  κ: 'k',
  μ: 'u',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  ω: 'w',
  // Latin and digits
  i: 'l',
  '1': 'l',
  '|': 'l',
  '0': 'o',
  '5': 's',
  ı: 'l',
};

/**
 * The name as a reader sees it: the key two names share when they could pass for each other
 * ("Alpha", "ALPHA", "Αlpha" with a Greek alpha, "A l p h a"). Accents and other combining marks,
 * case, spaces and punctuation-like separators do not tell names apart to the eye either.
 */
export function nameSkeleton(name: string): string {
  const letters = name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[\s_\-.·]/gu, '');
  return [...letters]
    .map((ch) => LOOKALIKES[ch] ?? ch)
    .join('')
    .replace(/rn/g, 'm')
    .replace(/vv/g, 'w');
}
