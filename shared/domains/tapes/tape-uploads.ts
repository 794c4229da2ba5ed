import { randomUUID } from 'node:crypto';
import { createWriteStream, mkdirSync, renameSync, rmdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { z } from 'zod';
import { bodyHashes, digestValue, WANT_DIGEST, type ExpectedDigest } from '../../infra/content-digest.js';
import { AppError } from '../../infra/errors.js';
import { clearOlderThan, tapeDirs, type TapeDirs } from './tape-store.js';

/**
 * An upload's id, the one rule of both doors: the PUT of its files and the import that loads them
 * (an id the import would refuse must not be accepted for files, or they are never imported).
 */
export const uploadIdSchema = z.uuid();

/** The files of an upload, as `npm run tape:import -- --base-url` sends them. */
export const UPLOAD_FILES = ['markets.parquet', 'quant.parquet'] as const;
export type UploadFile = (typeof UPLOAD_FILES)[number];

export const isUploadFile = (name: string): name is UploadFile =>
  (UPLOAD_FILES as readonly string[]).includes(name);

/** An upload never imported (the import removes its own) is removed this long after its last file. */
export const UPLOAD_RETENTION_MS = 24 * 3600_000;

/** Removes uploads left unimported past UPLOAD_RETENTION_MS (by the recorder's runs and by each new upload). */
export const clearStaleUploads = (dirs: TapeDirs, now: Date) =>
  clearOlderThan(dirs.uploads, UPLOAD_RETENTION_MS, now);

/**
 * Streams one file of an upload into DATA_DIR/tapes/uploads/<id>/, never whole into memory; a body
 * larger than `maxBytes` is refused (413), and one whose bytes are not those of the digests the
 * request announced (`Content-Digest`, `Repr-Digest`: changed on its way) is refused (400). The file
 * is written under a temporary name and renamed into place only once it is whole and checked: a
 * refused body leaves nothing (an earlier upload of the same file stays as it was).
 */
export async function writeUploadFile(
  dataDir: string,
  upload: { id: string; file: UploadFile; body: Readable; maxBytes: number; digests?: ExpectedDigest[] },
  now: Date,
): Promise<{ upload_id: string; file: UploadFile; bytes: number }> {
  const dirs = tapeDirs(dataDir);
  clearStaleUploads(dirs, now);
  const dir = join(dirs.uploads, uploadIdSchema.parse(upload.id));
  mkdirSync(dir, { recursive: true });
  const partial = join(dir, `.${upload.file}.${randomUUID()}.partial`);
  const hashes = bodyHashes(upload.digests ?? []);
  let bytes = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      hashes.update(chunk);
      done(bytes > upload.maxBytes ? new Error('too large') : null, chunk);
    },
  });
  const discard = () => {
    rmSync(partial, { force: true });
    // The upload's folder too when this was its only file (an import would find nothing in it).
    try {
      rmdirSync(dir);
    } catch {
      // not empty: the upload's other file is there
    }
  };
  try {
    await pipeline(upload.body, meter, createWriteStream(partial));
  } catch (err) {
    discard();
    if (bytes > upload.maxBytes)
      throw new AppError(
        413,
        'payload_too_large',
        `The file is larger than ${upload.maxBytes} bytes`,
        'Import it from the service’s machine instead (`npm run tape:import` without --base-url).',
      );
    throw err;
  }
  const mismatch = hashes.mismatch();
  if (mismatch) {
    discard();
    const { expected, actual } = mismatch;
    throw new AppError(
      400,
      'content_digest_mismatch',
      `${upload.file}: the ${bytes} bytes received have ${digestValue(expected.algorithm, actual)} where ${expected.field} says ${digestValue(expected.algorithm, expected.digest)} (the file changed on its way); nothing of it was written`,
      `Send ${upload.file} again with the same ${expected.field} (\`npm run tape:import -- --base-url\` sends one for each file); if it is refused again, the copy you send is not the file whose digest you computed.`,
      { headers: { 'Want-Content-Digest': WANT_DIGEST } },
    );
  }
  renameSync(partial, join(dir, upload.file));
  return { upload_id: upload.id, file: upload.file, bytes };
}
