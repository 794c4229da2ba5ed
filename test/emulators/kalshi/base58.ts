// Base58 (Bitcoin alphabet), the text form of Solana keys, signatures and blockhashes. web3.js only
// exposes it for 32-byte public keys, and signatures are 64 bytes, so the emulator carries its own.

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const INDEX = new Map([...ALPHABET].map((c, i) => [c, i]));

export function encodeBase58(bytes: Uint8Array): string {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  let out = '';
  while (n > 0n) {
    out = ALPHABET[Number(n % 58n)] + out;
    n /= 58n;
  }
  // Each leading zero byte is one leading "1".
  for (const b of bytes) {
    if (b !== 0) break;
    out = '1' + out;
  }
  return out;
}

/** The bytes of a base58 string, or null when it has a character outside the alphabet. */
export function decodeBase58(text: string): Uint8Array | null {
  let n = 0n;
  for (const c of text) {
    const v = INDEX.get(c);
    if (v === undefined) return null;
    n = n * 58n + BigInt(v);
  }
  const body: number[] = [];
  while (n > 0n) {
    body.unshift(Number(n & 0xffn));
    n >>= 8n;
  }
  let zeros = 0;
  while (text[zeros] === '1') zeros++;
  return Uint8Array.from([...new Array<number>(zeros).fill(0), ...body]);
}

/** A base58 string that decodes to exactly `length` bytes (32 for an address). */
export function isBase58Of(text: unknown, length: number): text is string {
  if (typeof text !== 'string' || text.length === 0) return false;
  return decodeBase58(text)?.length === length;
}
