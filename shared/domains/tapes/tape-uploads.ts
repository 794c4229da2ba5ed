import { createWriteStream, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { z } from 'zod';
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
 * larger than `maxBytes` is refused (413) and what was written of it removed.
 */
export async function writeUploadFile(
  dataDir: string,
  upload: { id: string; file: UploadFile; body: Readable; maxBytes: number },
  now: Date,
): Promise<{ upload_id: string; file: UploadFile; bytes: number }> {
  const dirs = tapeDirs(dataDir);
  clearStaleUploads(dirs, now);
  const dir = join(dirs.uploads, uploadIdSchema.parse(upload.id));
  mkdirSync(dir, { recursive: true });
  const target = join(dir, upload.file);
  let bytes = 0;
  const cap = new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      done(bytes > upload.maxBytes ? new Error('too large') : null, chunk);
    },
  });
  try {
    await pipeline(upload.body, cap, createWriteStream(target));
  } catch (err) {
    rmSync(target, { force: true });
    if (bytes > upload.maxBytes)
      throw new AppError(
        413,
        'payload_too_large',
        `The file is larger than ${upload.maxBytes} bytes`,
        'Import it from the service’s machine instead (`npm run tape:import` without --base-url).',
      );
    throw err;
  }
  return { upload_id: upload.id, file: upload.file, bytes };
}
