import { createHash } from 'node:crypto';
import { VersionedMessage } from '@solana/web3.js';
import { toBase58 } from '../../../util/base58.js';
import { verifyEd25519 } from '../../../util/ed25519.js';

/**
 * Server-side checks of a client-signed Solana transaction (kalshi.md §3.6), before it is relayed:
 * the wire is cut as received (signatures ‖ message, never re-serialised), so what is compared with
 * the quote and what the signatures are verified over are the exact bytes the chain will see.
 */

/** A transaction as it came over the wire. */
export interface WireTransaction {
  /** The message bytes (v0: with the 0x80 prefix), exactly as received. */
  message: Uint8Array;
  /** The 64-byte signature slots, in signer order. */
  signatures: Uint8Array[];
  /** The static keys that must sign (base58), in slot order; key 0 is the fee payer. */
  signers: string[];
}

/** shortvec (compact-u16): 1–3 bytes, 7 bits each, little-endian; `[value, bytes read]`. */
function readShortVec(bytes: Uint8Array, at: number): [number, number] {
  let value = 0;
  for (let i = 0; i < 3; i++) {
    const b = bytes[at + i];
    if (b === undefined) throw new Error('truncated length prefix');
    value |= (b & 0x7f) << (7 * i);
    if ((b & 0x80) === 0) return [value, i + 1];
  }
  throw new Error('length prefix too long');
}

/** Cuts a base64 transaction into its signatures and message; null when it is not one. */
export function parseWireTransaction(base64: string): WireTransaction | null {
  try {
    const bytes = Buffer.from(base64, 'base64');
    if (bytes.length === 0 || bytes.toString('base64') !== base64.replace(/\s+/g, '')) return null;
    const [count, read] = readShortVec(bytes, 0);
    const start = read + count * 64;
    if (count === 0 || bytes.length <= start) return null;
    const signatures = Array.from({ length: count }, (_, i) =>
      bytes.subarray(read + i * 64, read + (i + 1) * 64),
    );
    const message = bytes.subarray(start);
    const parsed = VersionedMessage.deserialize(message);
    const required = parsed.header.numRequiredSignatures;
    if (required !== count) return null;
    const signers = parsed.staticAccountKeys.slice(0, required).map((k) => k.toBase58());
    if (signers.length !== required) return null;
    return {
      message: new Uint8Array(message),
      signatures: signatures.map((s) => new Uint8Array(s)),
      signers,
    };
  } catch {
    return null;
  }
}

/** The digest a quote keeps of its message: a signed copy must carry the very same bytes. */
export const messageDigest = (message: Uint8Array): string =>
  createHash('sha256').update(message).digest('hex');

/** Every required signature verifies over the message (an all-zero slot is a missing one). */
export const allSigned = (tx: WireTransaction): boolean =>
  tx.signers.every((signer, i) => verifyEd25519(signer, tx.message, tx.signatures[i]!));

/** The transaction id: base58 of signature 0. */
export const transactionId = (tx: WireTransaction): string => toBase58(tx.signatures[0]!);
