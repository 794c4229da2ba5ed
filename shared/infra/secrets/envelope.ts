import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Envelope encryption for secrets at rest (CLOB credentials, managed wallet keys). Every record gets a
 * fresh random data key; the payload is sealed with it (AES-256-GCM) and the data key is sealed with
 * the master key (AES-256-GCM again), so the master key only ever encrypts 32 random bytes and can be
 * rotated by re-sealing data keys. Both layers carry the record's `context` (e.g.
 * `clob-credentials:<user>:<address>`) as additional authenticated data: a sealed value copied onto
 * another record does not open there.
 */

/** The stored form: JSON-able and safe to log (nothing in it opens without the master key). */
export interface SealedSecret {
  /** Format version. */
  v: 1;
  /** Which master key sealed the data key: a hash of the key, never the key. */
  kid: string;
  /** The data key sealed with the master key: base64 of iv (12) ‖ tag (16) ‖ ciphertext (32). */
  dk: string;
  /** The payload's nonce, tag and ciphertext under the data key, base64. */
  iv: string;
  tag: string;
  ct: string;
}

export const MASTER_KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const ALGORITHM = 'aes-256-gcm';

/** Refused to seal or open: a wrong or missing key, or a sealed value that was altered. The message never holds secret material. */
export class SecretsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretsError';
  }
}

/** A short public id of a master key (sha256 of a label and the key, first 16 hex digits). */
export function masterKeyId(key: Buffer): string {
  return createHash('sha256').update('secrets-master-key-id\0').update(key).digest('hex').slice(0, 16);
}

function encrypt(key: Buffer, plaintext: Buffer, aad: string) {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const ct = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return { iv, tag: cipher.getAuthTag(), ct };
}

function decrypt(key: Buffer, iv: Buffer, tag: Buffer, ct: Buffer, aad: string): Buffer {
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES)
    throw new SecretsError('sealed secret is malformed (iv or tag length)');
  const decipher = createDecipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(ct), decipher.final()]);
  } catch {
    throw new SecretsError('sealed secret failed authentication (altered, or opened for another record)');
  }
}

const dataKeyAad = (kid: string, context: string) => `data-key:v1:${kid}:${context}`;
const payloadAad = (context: string) => `payload:v1:${context}`;

/**
 * Seals and opens secrets with one master key. The key lives in a private field, so neither
 * `console.log`, `util.inspect` nor `JSON.stringify` of the box shows it.
 */
export class SecretBox {
  readonly keyId: string;
  readonly #key: Buffer;

  constructor(masterKey: Buffer) {
    if (masterKey.length !== MASTER_KEY_BYTES)
      throw new SecretsError(`the master key must be ${MASTER_KEY_BYTES} bytes (64 hex characters)`);
    this.#key = Buffer.from(masterKey);
    this.keyId = masterKeyId(this.#key);
  }

  seal(plaintext: string | Buffer, context: string): SealedSecret {
    const dataKey = randomBytes(MASTER_KEY_BYTES);
    try {
      const payload = encrypt(
        dataKey,
        typeof plaintext === 'string' ? Buffer.from(plaintext, 'utf8') : plaintext,
        payloadAad(context),
      );
      const wrapped = encrypt(this.#key, dataKey, dataKeyAad(this.keyId, context));
      return {
        v: 1,
        kid: this.keyId,
        dk: Buffer.concat([wrapped.iv, wrapped.tag, wrapped.ct]).toString('base64'),
        iv: payload.iv.toString('base64'),
        tag: payload.tag.toString('base64'),
        ct: payload.ct.toString('base64'),
      };
    } finally {
      dataKey.fill(0);
    }
  }

  /** The plaintext bytes; the caller should `fill(0)` them once used. */
  open(sealed: SealedSecret, context: string): Buffer {
    if (sealed?.v !== 1) throw new SecretsError(`unknown sealed-secret version ${String(sealed?.v)}`);
    if (sealed.kid !== this.keyId)
      throw new SecretsError(
        `sealed under another master key (key id ${sealed.kid}, configured ${this.keyId}): configure the SECRETS_MASTER_KEY that sealed it`,
      );
    const dk = Buffer.from(sealed.dk, 'base64');
    const dataKey = decrypt(
      this.#key,
      dk.subarray(0, IV_BYTES),
      dk.subarray(IV_BYTES, IV_BYTES + TAG_BYTES),
      dk.subarray(IV_BYTES + TAG_BYTES),
      dataKeyAad(sealed.kid, context),
    );
    try {
      if (dataKey.length !== MASTER_KEY_BYTES) throw new SecretsError('sealed data key has the wrong length');
      return decrypt(
        dataKey,
        Buffer.from(sealed.iv, 'base64'),
        Buffer.from(sealed.tag, 'base64'),
        Buffer.from(sealed.ct, 'base64'),
        payloadAad(context),
      );
    } finally {
      dataKey.fill(0);
    }
  }

  openString(sealed: SealedSecret, context: string): string {
    const bytes = this.open(sealed, context);
    try {
      return bytes.toString('utf8');
    } finally {
      bytes.fill(0);
    }
  }

  toJSON() {
    return { keyId: this.keyId };
  }
}
