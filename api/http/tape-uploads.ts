import { Router } from 'express';
import type { Deps } from '../../shared/composition/deps.js';
import { AppError } from '../../shared/infra/errors.js';
import type { OperatorLockout } from '../../shared/infra/operator-lockout.js';
import { operatorActions } from '../../shared/domains/operator/operator-actions.js';
import { API_ACTOR } from '../../shared/domains/operator/record-action.js';
import { isUploadFile, uploadIdSchema } from '../../shared/domains/tapes/tape-uploads.js';
import { refuseCrossOriginWrites } from './cross-origin.js';
import { requireOperator } from './operator-auth.js';

/**
 * `PUT /api/admin/tapes/uploads/{upload_id}/{markets|quant}.parquet` (operator): streams one file of
 * a dataset to import into DATA_DIR/tapes/uploads (shared/domains/tapes/tape-uploads.ts), recorded
 * in the operator audit trail; `POST /api/admin/tapes/import` then loads the pair. Not in the
 * endpoint table: its body is a raw file.
 */
export function tapeUploads(deps: Deps, lockout: OperatorLockout, maxBytes: number): Router {
  const router = Router();
  router.put(
    '/api/admin/tapes/uploads/:uploadId/:file',
    refuseCrossOriginWrites,
    requireOperator(lockout),
    async (req, res) => {
      const { uploadId, file } = req.params as { uploadId: string; file: string };
      if (!uploadIdSchema.safeParse(uploadId).success || !isUploadFile(file))
        throw new AppError(
          404,
          'not_found',
          'Unknown upload path',
          'PUT /api/admin/tapes/uploads/<uuid>/markets.parquet and …/quant.parquet, then POST /api/admin/tapes/import.',
        );
      const written = await operatorActions.uploadTapeFile(deps, API_ACTOR, {
        id: uploadId,
        file,
        body: req,
        maxBytes,
      });
      res.status(201).json(written);
    },
  );
  return router;
}
