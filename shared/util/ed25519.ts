import { createPublicKey, verify } from 'node:crypto';
import { PublicKey } from '@solana/web3.js';

/**
 * Ed25519 signatures of Solana keys (base58 addresses): a wallet's proof of ownership and the
 * signatures of a client-signed transaction are both checked with it.
 */

/** DER SubjectPublicKeyInfo prefix of an Ed25519 key (RFC 8410), followed by the 32 key bytes. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** Whether `signature` is `address`'s ed25519 signature of `message`. */
export function verifyEd25519(address: string, message: Uint8Array, signature: Uint8Array): boolean {
  try {
    const key = createPublicKey({
      key: Buffer.concat([ED25519_SPKI_PREFIX, new PublicKey(address).toBuffer()]),
      format: 'der',
      type: 'spki',
    });
    return signature.length === 64 && verify(null, message, key, signature);
  } catch {
    return false;
  }
}
