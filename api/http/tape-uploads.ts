import { Router, type Request } from 'express';
import type { Deps } from '../../shared/composition/deps.js';
import {
  DIGEST_FIELDS,
  DigestFieldError,
  parseDigestField,
  WANT_DIGEST,
  type ExpectedDigest,
} from '../../shared/infra/content-digest.js';
import { AppError } from '../../shared/infra/errors.js';
import type { OperatorLockout } from '../../shared/infra/operator-lockout.js';
import { operatorActions } from '../../shared/domains/operator/operator-actions.js';
import { API_ACTOR } from '../../shared/domains/operator/record-action.js';
import { isUploadFile, uploadIdSchema } from '../../shared/domains/tapes/tape-uploads.js';
import { refuseCrossOriginWrites } from './cross-origin.js';
import { requireOperator } from './operator-auth.js';

/**
 * The digests a PUT announces for its body (RFC 9530 `Content-Digest`, `Repr-Digest`; none: the body
 * is taken unchecked, as before clients sent them), or a 400 naming what is wrong with the field.
 */
function announcedDigests(req: Request, file: string): ExpectedDigest[] {
  try {
    return DIGEST_FIELDS.flatMap((field) => parseDigestField(field, req.get(field)));
  } catch (err) {
    if (!(err instanceof DigestFieldError)) throw err;
    throw new AppError(
      400,
      'content_digest_invalid',
      `${file}: ${err.message}`,
      'Send Content-Digest: sha-256=:<base64 of the sha-256 of the file>: (RFC 9530), or no digest field at all.',
      { headers: { 'Want-Content-Digest': WANT_DIGEST } },
    );
  }
}

/**
 * `PUT /api/admin/tapes/uploads/{upload_id}/{markets|quant}.parquet` (operator): streams one file of
 * a dataset to import into DATA_DIR/tapes/uploads (shared/domains/tapes/tape-uploads.ts), recorded
 * in the operator audit trail; `POST /api/admin/tapes/import` then loads the pair. Not in the
 * endpoint table (its body is a raw file): published in the OpenAPI document from tapeUploadRoute
 * (api/endpoints/tapes.endpoints.ts).
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
      const digests = announcedDigests(req, file);
      const written = await operatorActions.uploadTapeFile(deps, API_ACTOR, {
        id: uploadId,
        file,
        body: req,
        maxBytes,
        digests,
      });
      res.status(201).json(written);
    },
  );
  return router;
}
