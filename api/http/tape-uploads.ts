import { createWriteStream, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { Router } from 'express';
import { AppError } from '../../shared/infra/errors.js';
import type { OperatorLockout } from '../../shared/infra/operator-lockout.js';
import { tapeDirs } from '../../shared/domains/tapes/tape-store.js';
import { refuseCrossOriginWrites } from './cross-origin.js';
import { requireOperator } from './operator-auth.js';

/** The files of an upload, as `npm run tape:import -- --base-url` sends them. */
const UPLOAD_FILES = new Set(['markets.parquet', 'quant.parquet']);
const UPLOAD_ID = /^[0-9a-f-]{36}$/;

/**
 * `PUT /api/admin/tapes/uploads/{upload_id}/{markets|quant}.parquet` (operator): streams one file of
 * a dataset to import into DATA_DIR/tapes/uploads, never whole into memory; `POST
 * /api/admin/tapes/import` then loads the pair. Not in the endpoint table: its body is a raw file.
 */
export function tapeUploads(dataDir: string, lockout: OperatorLockout, maxBytes: number): Router {
  const router = Router();
  router.put(
    '/api/admin/tapes/uploads/:uploadId/:file',
    refuseCrossOriginWrites,
    requireOperator(lockout),
    async (req, res) => {
      const { uploadId, file } = req.params as { uploadId: string; file: string };
      if (!UPLOAD_ID.test(uploadId) || !UPLOAD_FILES.has(file))
        throw new AppError(
          404,
          'not_found',
          'Unknown upload path',
          'PUT /api/admin/tapes/uploads/<uuid>/markets.parquet and …/quant.parquet, then POST /api/admin/tapes/import.',
        );
      const dir = join(tapeDirs(dataDir).uploads, uploadId);
      mkdirSync(dir, { recursive: true });
      const target = join(dir, file);
      let bytes = 0;
      const cap = new Transform({
        transform(chunk: Buffer, _enc, done) {
          bytes += chunk.length;
          done(bytes > maxBytes ? new Error('too large') : null, chunk);
        },
      });
      try {
        await pipeline(req, cap, createWriteStream(target));
      } catch (err) {
        rmSync(target, { force: true });
        if (bytes > maxBytes)
          throw new AppError(
            413,
            'payload_too_large',
            `The file is larger than ${maxBytes} bytes`,
            'Import it from the service’s machine instead (`npm run tape:import` without --base-url).',
          );
        throw err;
      }
      res.status(201).json({ upload_id: uploadId, file, bytes });
    },
  );
  return router;
}
