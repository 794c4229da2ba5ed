import { createHash } from 'node:crypto';
import { prng } from '../../../shared/util/prng.js';

// Deterministic identifiers. Everything is derived from stable text (usually a slug) so that the
// same catalogue always has the same ids: tests may hard-code nothing, but two runs, or a
// reset, never disagree about which token belongs to which market.

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** `0x` + 64 hex, like a CTF conditionId / questionID / negRiskMarketID (all bytes32). */
export function bytes32(text: string): string {
  return `0x${sha256Hex(text)}`;
}

/**
 * A CTF ERC-1155 token id: the decimal form of a uint256 (≈77 digits). The top bit is forced on
 * so every id has the realistic 76–78 digit length, and ids stay strings (they exceed 2^53).
 */
export function tokenId(text: string): string {
  const n = BigInt(`0x${sha256Hex(`token:${text}`)}`) | (1n << 255n);
  return n.toString(10);
}

/** A numeric-string id in [min, min + span) derived from text, for rolling markets that have no sequence. */
export function numericId(text: string, min: number, span: number): string {
  const n = Number(BigInt(`0x${sha256Hex(`id:${text}`).slice(0, 12)}`) % BigInt(span));
  return String(min + n);
}

/** Small seeded PRNG (mulberry32) for books, sizes and random walks: same seed, same numbers. */
export function seededRandom(seedText: string): () => number {
  return prng(Number.parseInt(sha256Hex(seedText).slice(0, 8), 16));
}

export function slugify(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 90);
}

/** A version-4-shaped UUID derived from text (trade ids, like the real CLOB's). */
export function uuidFrom(text: string): string {
  const h = sha256Hex(text);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
