import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Request, Response } from 'express';
import { publicBaseUrl } from '../../shared/infra/config/env.js';
import { AppError, notFound } from '../../shared/infra/errors.js';
import { operatorActions } from '../../shared/domains/operator/operator-actions.js';
import { API_ACTOR } from '../../shared/domains/operator/record-action.js';
import { requestTape } from '../../shared/domains/tapes/request-tape.js';
import { sliceDir } from '../../shared/domains/tapes/slice-tape.js';
import { tapeCoverage } from '../../shared/domains/tapes/tape-coverage.js';
import { tapeKey } from '../../shared/domains/tapes/tape-secret.js';
import { tapeDirs } from '../../shared/domains/tapes/tape-store.js';
import { checkTapeUrl } from '../../shared/domains/tapes/tape-urls.js';
import type { Deps } from '../../shared/composition/deps.js';
import type { HandlersFor } from '../endpoints/endpoint.js';
import type { tapeEndpoints } from '../endpoints/tapes.endpoints.js';

/**
 * Where download URLs point: PUBLIC_BASE_URL when set, else the origin the request came to (the
 * client fetches from where it called, e.g. `--base-url http://localhost:8080`).
 */
const originOf = (deps: Deps, req: Request) =>
  deps.env.PUBLIC_BASE_URL
    ? publicBaseUrl(deps.env)
    : `${req.protocol}://${req.get('host') ?? `localhost:${deps.env.PORT}`}`;

const CONTENT_TYPES = {
  'markets.parquet': 'application/vnd.apache.parquet',
  'quant.parquet': 'application/vnd.apache.parquet',
  'manifest.json': 'application/json',
} as const;

/** Sends one file of a built tape (send handles Range, HEAD and conditional requests). */
function sendFile(res: Response, path: string, type: string, maxAgeSeconds: number): Promise<void> {
  return new Promise((resolve, reject) => {
    res.sendFile(
      path,
      {
        acceptRanges: true,
        headers: { 'Content-Type': type, 'Cache-Control': `private, max-age=${Math.max(0, maxAgeSeconds)}` },
      },
      (err) => (err && !res.headersSent ? reject(err) : resolve()),
    );
  });
}

export const tapeHandlers: HandlersFor<typeof tapeEndpoints> = {
  requestTape: async ({ deps, agent, body, req }) => requestTape(deps, agent._id, body, originOf(deps, req)),
  tapeCoverage: async ({ deps }) => tapeCoverage(deps),
  adminTapes: async ({ deps }) => tapeCoverage(deps),
  importTape: async ({ deps, body }) =>
    operatorActions.importTape(deps, API_ACTOR, body.upload_id, body.source),
  downloadTapeFile: async ({ deps, params, query, res }) => {
    const nowSec = Math.floor(deps.clock().getTime() / 1000);
    const check = checkTapeUrl(
      tapeKey(deps.env, 'tape-urls'),
      params.key,
      params.file,
      query.expires,
      query.sig,
      nowSec,
    );
    if (check !== 'ok')
      throw new AppError(
        403,
        check === 'expired' ? 'url_expired' : 'url_invalid',
        check === 'expired'
          ? 'This tape URL has expired'
          : 'This tape URL is not valid (its signature does not match)',
        'Ask POST /api/backtest/tape again for fresh URLs (a tape already built is free).',
        { retryable: false },
      );
    const file = join(sliceDir(tapeDirs(deps.env.DATA_DIR), params.key), params.file);
    if (!existsSync(file))
      throw notFound(
        'Tape file',
        'Built tapes are kept a day: ask POST /api/backtest/tape again to rebuild it.',
      );
    await sendFile(res, file, CONTENT_TYPES[params.file], Number(query.expires) - nowSec);
    return '';
  },
};
