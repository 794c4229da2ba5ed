import { createPublicKey, verify } from 'node:crypto';
import { VersionedMessage, type VersionedMessage as Message } from '@solana/web3.js';
import { decodeBase58, encodeBase58 } from '../base58.js';

// The wire format of kalshi.md §3.6: shortvec(numSigs) ‖ 64-byte signatures ‖ message. The message
// bytes are cut from the wire as they are, never re-serialised, so a signature is checked against
// exactly what the client signed (a v0 message includes its 0x80 prefix). web3.js only parses the
// message's structure (header, static keys, blockhash, instructions).

export interface WireTransaction {
  signatures: Uint8Array[];
  messageBytes: Uint8Array;
  message: Message;
  /** base58 of signature 0: the transaction id. */
  id: string;
}

/** Why a transaction could not be decoded, in the words the RPC answers with (-32602). */
export class DecodeError extends Error {}

function shortvec(bytes: Uint8Array, at: number): { value: number; next: number } {
  let value = 0;
  for (let i = 0; i < 3; i++) {
    const b = bytes[at + i];
    if (b === undefined) throw new DecodeError('io error: failed to fill whole buffer');
    value |= (b & 0x7f) << (7 * i);
    if ((b & 0x80) === 0) return { value, next: at + i + 1 };
  }
  throw new DecodeError('invalid value: integer `4294967295`, expected a valid ShortU16');
}

export function decodeEncoded(text: string, encoding: string): Uint8Array {
  if (encoding === 'base64') {
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0)
      throw new DecodeError(`invalid base64 encoding: InvalidByte(0, ${text.charCodeAt(0)})`);
    return new Uint8Array(Buffer.from(text, 'base64'));
  }
  const bytes = decodeBase58(text);
  if (!bytes) throw new DecodeError('invalid base58 encoding: InvalidCharacter');
  return bytes;
}

export function parseTransaction(wire: Uint8Array): WireTransaction {
  const { value: count, next } = shortvec(wire, 0);
  const signatures: Uint8Array[] = [];
  let at = next;
  for (let i = 0; i < count; i++, at += 64) {
    if (at + 64 > wire.length) throw new DecodeError('io error: failed to fill whole buffer');
    signatures.push(wire.slice(at, at + 64));
  }
  const messageBytes = wire.slice(at);
  let message: Message;
  try {
    message = VersionedMessage.deserialize(messageBytes);
  } catch {
    throw new DecodeError('io error: failed to fill whole buffer');
  }
  const first = signatures[0];
  if (!first) throw new DecodeError('io error: failed to fill whole buffer');
  return { signatures, messageBytes, message, id: encodeBase58(first) };
}

/** Agave's sanitize step: one signature slot per required signer, no more, no fewer. */
export function sanitized(tx: WireTransaction): boolean {
  return tx.signatures.length === tx.message.header.numRequiredSignatures;
}

const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

export function verifyEd25519(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  try {
    const key = createPublicKey({
      key: Buffer.concat([SPKI_ED25519_PREFIX, Buffer.from(publicKey)]),
      format: 'der',
      type: 'spki',
    });
    return verify(null, message, key, signature);
  } catch {
    // Not a point on the curve (a PDA, say): nothing can have signed for it.
    return false;
  }
}

/** Every required signer (static keys 0 … numRequiredSignatures−1) signed these exact message bytes. */
export function signaturesVerify(tx: WireTransaction): boolean {
  const keys = tx.message.staticAccountKeys;
  return tx.signatures.every((sig, i) => {
    const key = keys[i];
    return key !== undefined && verifyEd25519(key.toBytes(), tx.messageBytes, sig);
  });
}

export const requiredSigners = (tx: WireTransaction): string[] =>
  tx.message.staticAccountKeys.slice(0, tx.message.header.numRequiredSignatures).map((k) => k.toBase58());
