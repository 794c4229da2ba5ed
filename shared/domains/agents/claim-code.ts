import { randomInt } from 'node:crypto';

const WORDS = [
  'reef',
  'tide',
  'kelp',
  'dune',
  'mesa',
  'fjord',
  'delta',
  'cove',
  'ridge',
  'grove',
  'marsh',
  'cliff',
  'brook',
  'glade',
  'heath',
  'knoll',
  'lagoon',
  'moor',
  'oasis',
  'peak',
  'quay',
  'shoal',
  'spire',
  'vale',
  'atoll',
  'bay',
  'cairn',
  'crag',
  'fern',
  'geyser',
  'isle',
  'pine',
] as const;
// Crockford-style alphabet: no 0/O or 1/I/L, so a code read aloud or copied by hand survives.
const ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';

/** e.g. `reef-X4B2Q7`: a word for humans plus 6 random characters (~2^34 codes). */
export function generateClaimCode(): string {
  let suffix = '';
  for (let i = 0; i < 6; i++) suffix += ALPHABET[randomInt(ALPHABET.length)];
  return `${WORDS[randomInt(WORDS.length)]}-${suffix}`;
}

export const CLAIM_CODE_PATTERN = /^[a-z]{2,10}-[2-9A-HJKMNP-Z]{4,8}$/;
