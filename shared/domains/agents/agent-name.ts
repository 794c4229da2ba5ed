import unhomoglyph from 'unhomoglyph';
import { z } from 'zod';

/**
 * Agent names are shown to other people (leaderboards, claim pages), so they are stored in one
 * normal form (NFKC: "ﬁ" and "fi", full-width and ASCII letters are one spelling) and may not carry
 * characters that hide or reorder text: controls (Cc: NUL, escapes), format characters (Cf: bidi
 * overrides and isolates U+202A–U+202E, U+2066–U+2069, marks U+200E/U+200F/U+061C, zero-width
 * U+200B–U+200D, U+FEFF, …), lone surrogates (Cs: not text at all, broken by every encoder), and
 * the other default-ignorable code points, which render as nothing though some are letters (U+3164
 * HANGUL FILLER, U+115F): "Alpha" and "Alpha" with a filler would otherwise look alike and differ.
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Cs}\p{Default_Ignorable_Code_Point}]/u;
// Variation selectors are default-ignorable too, but they only pick an emoji's look ("❤️"): kept.
const VARIATION_SELECTOR = /[\uFE00-\uFE0F]/u;
const hiddenCharacterIn = (name: string) =>
  [...name].find((ch) => HIDDEN.test(ch) && !VARIATION_SELECTOR.test(ch));

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
        const hidden = hiddenCharacterIn(name);
        if (hidden)
          ctx.addIssue({
            code: 'custom',
            message: `name contains the invisible or control character ${codePoint(hidden)}; use visible characters only`,
            input: name,
          });
      }),
  );

/**
 * The name as a reader sees it: the key two names share when they could pass for each other
 * ("Alpha", "ALPHA", "Αlpha" with a Greek alpha, "AIpha" with a capital I, "A l p h a"). Lookalike
 * characters are mapped by Unicode's confusables (UTS #39 skeleton, the unhomoglyph package's copy
 * of confusables.txt) before and after lower-casing: before, so that a capital I still reads as an
 * l; after, so that case does not tell names apart (and i, the capital I's own small letter, joins l). Accents and other combining marks, spaces and
 * punctuation-like separators do not tell names apart to the eye either.
 */
export function nameSkeleton(name: string): string {
  const bare = name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[\s_\-.·]/gu, '');
  // A capital I reads as an l, and is the capital of i: so i, I and l are one letter to the eye.
  return unhomoglyph(unhomoglyph(bare).toLowerCase()).replace(/i/g, 'l');
}
