import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';

/**
 * RFC 9530 integrity fields: `Content-Digest` (the bytes of the body as sent) and `Repr-Digest`
 * (the representation's; the same bytes for a whole body, which is all a PUT here sends). Only the
 * algorithms the IANA registry lists as active are taken: a client that names only others is told
 * which ones to use rather than trusted unchecked.
 */
export const DIGEST_ALGORITHMS = { 'sha-256': 'sha256', 'sha-512': 'sha512' } as const;
export type DigestAlgorithm = keyof typeof DIGEST_ALGORITHMS;

export const DIGEST_FIELDS = ['Content-Digest', 'Repr-Digest'] as const;
export type DigestField = (typeof DIGEST_FIELDS)[number];

/** `Want-Content-Digest` value: the algorithms a client may send, sha-256 preferred. */
export const WANT_DIGEST = 'sha-256=10, sha-512=5';

const DIGEST_BYTES: Record<DigestAlgorithm, number> = { 'sha-256': 32, 'sha-512': 64 };

/** One digest a request announces for its body. */
export interface ExpectedDigest {
  field: DigestField;
  algorithm: DigestAlgorithm;
  digest: Buffer;
}

/** A digest field that cannot be read, or names no algorithm this service checks. */
export class DigestFieldError extends Error {
  constructor(
    readonly field: DigestField,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = 'DigestFieldError';
  }
}

/** An RFC 8941 dictionary member whose value is a byte sequence, parameters allowed (and ignored). */
const MEMBER = /^([a-z*][a-z0-9_\-.*]*)=:([A-Za-z0-9+/]*={0,2}):(;.*)?$/;

/**
 * The digests of a `Content-Digest` or `Repr-Digest` value (`sha-256=:<base64>:, …`), or none when
 * the field is absent. RFC 8941 would have a malformed field ignored; here it is refused, as object
 * stores refuse a malformed checksum header: the client asked for its bytes to be checked.
 */
export function parseDigestField(field: DigestField, value: string | undefined): ExpectedDigest[] {
  if (value === undefined) return [];
  const found = new Map<string, Buffer>();
  for (const raw of value.split(',')) {
    const member = raw.trim();
    const match = MEMBER.exec(member);
    if (!match)
      throw new DigestFieldError(
        field,
        `"${member.slice(0, 80)}" is not <algorithm>=:<base64>: (RFC 9530, e.g. sha-256=:X48E9q…=:)`,
      );
    // A key named twice: the last one counts (RFC 8941 §4.2.2).
    found.set(match[1]!, Buffer.from(match[2]!, 'base64'));
  }
  const digests: ExpectedDigest[] = [];
  for (const [name, digest] of found) {
    if (!(name in DIGEST_ALGORITHMS)) continue;
    const algorithm = name as DigestAlgorithm;
    if (digest.length !== DIGEST_BYTES[algorithm])
      throw new DigestFieldError(
        field,
        `a ${algorithm} digest is ${DIGEST_BYTES[algorithm]} bytes, this one ${digest.length}`,
      );
    digests.push({ field, algorithm, digest });
  }
  if (!digests.length)
    throw new DigestFieldError(
      field,
      `names no algorithm this service checks (${[...found.keys()].join(', ')}); send ${Object.keys(DIGEST_ALGORITHMS).join(' or ')}`,
    );
  return digests;
}

/** The running hashes of a body, one per algorithm the request's digests name. */
export function bodyHashes(expected: readonly ExpectedDigest[]) {
  const hashes = new Map<DigestAlgorithm, Hash>();
  for (const e of expected)
    if (!hashes.has(e.algorithm)) hashes.set(e.algorithm, createHash(DIGEST_ALGORITHMS[e.algorithm]));
  return {
    update: (chunk: Buffer) => hashes.forEach((h) => h.update(chunk)),
    /** The first announced digest the body does not have, with the body's own; null when all match. */
    mismatch(): { expected: ExpectedDigest; actual: Buffer } | null {
      const actual = new Map([...hashes].map(([algorithm, h]) => [algorithm, h.digest()]));
      for (const e of expected) {
        const got = actual.get(e.algorithm)!;
        if (!got.equals(e.digest)) return { expected: e, actual: got };
      }
      return null;
    },
  };
}

/** `sha-256=:<base64>:` of bytes, as a digest field's value. */
export const digestValue = (algorithm: DigestAlgorithm, digest: Buffer) =>
  `${algorithm}=:${digest.toString('base64')}:`;

/** The sha-256 of a file's bytes, read as a stream. */
export const sha256OfFile = (file: string) =>
  new Promise<Buffer>((resolve, reject) => {
    const h = createHash('sha256');
    createReadStream(file)
      .on('data', (c) => h.update(c))
      .on('end', () => resolve(h.digest()))
      .on('error', reject);
  });

/** The `Content-Digest` value of a file's bytes (sha-256). */
export const fileContentDigest = async (file: string) => digestValue('sha-256', await sha256OfFile(file));
