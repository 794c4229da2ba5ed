/**
 * Base58 (Bitcoin alphabet): how Solana writes keys and signatures. web3.js only exposes it for
 * 32-byte public keys; a signature is 64 bytes. Digit-array conversion, so no size limit applies.
 */
const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** Re-expresses `digits` (most significant first) from base `from` to base `to`. */
function convert(digits: number[], from: number, to: number): number[] {
  const out: number[] = [];
  for (const d of digits) {
    let carry = d;
    for (let i = 0; i < out.length; i++) {
      carry += out[i]! * from;
      out[i] = carry % to;
      carry = Math.floor(carry / to);
    }
    for (; carry > 0; carry = Math.floor(carry / to)) out.push(carry % to);
  }
  return out.reverse();
}

const leadingZeros = <T>(xs: ArrayLike<T>, zero: T) => {
  let n = 0;
  while (n < xs.length && xs[n] === zero) n++;
  return n;
};

export function toBase58(bytes: Uint8Array): string {
  const zeros = leadingZeros(bytes, 0);
  const digits = convert([...bytes.subarray(zeros)], 256, 58);
  return '1'.repeat(zeros) + digits.map((d) => ALPHABET[d]).join('');
}

/** The bytes, or null when a character is outside the alphabet. */
export function fromBase58(text: string): Uint8Array | null {
  const values = [...text].map((c) => ALPHABET.indexOf(c));
  if (values.some((v) => v < 0)) return null;
  const zeros = leadingZeros(values, 0);
  return Uint8Array.from([...new Array<number>(zeros).fill(0), ...convert(values.slice(zeros), 58, 256)]);
}
